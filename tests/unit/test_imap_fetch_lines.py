"""imap_view/fetch_lines.py writes the FETCH lines pymap's values wrote."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pymap.backend.dict.mailbox import Message as DictMessage
from pymap.mime import MessageContent
from pymap.parsing import Params
from pymap.parsing.command.select import FetchCommand
from pymap.parsing.primitives import List, Number
from pymap.parsing.response import ResponseOk
from pymap.parsing.response.specials import FetchResponse
from pymap.parsing.specials import FetchAttribute, FetchRequirement, FetchValue
from pymap.parsing.specials.flag import Flag, Flagged, Seen

from imap_view.condstore_parsing import ModseqFetchCommand
from imap_view.fetch_lines import FetchLine, FetchPlan, GatewayAttributes
from imap_view.fetch_memo import MAX_BYTES, remembered
from imap_view.fetch_ok import FetchOk
from imap_view.message import LoadedMessage, Message
from tests.support.pymap_selected import selected_mailbox

RAW = (
    b"Subject: =?utf-8?q?h=C3=A9?=\r\nFrom: A <a@example.com>\r\nTo: b@example.com\r\n"
    b"Message-ID: <1@example.com>\r\nContent-Type: multipart/mixed; boundary=xx\r\n\r\n"
    b"--xx\r\nContent-Type: text/plain\r\n\r\nbody\r\n--xx--\r\n"
)
ITEMS = [
    b"UID FLAGS",
    b"FLAGS ENVELOPE",
    b"UID FLAGS MODSEQ ENVELOPE RFC822.SIZE",
    b"BODY.PEEK[]",
    b"BODY[]",
    b"RFC822",
    b"BODY.PEEK[HEADER] BODY[TEXT] BODY.PEEK[1] BODY.PEEK[1.MIME]",
    b"BODY[]<0.10> BODY.PEEK[]<5.3>",
    b"BODYSTRUCTURE BODY RFC822.HEADER RFC822.TEXT",
    b"BINARY.PEEK[1] BINARY.SIZE[1]",
    b"UID UID FLAGS UID",
]


def _attributes(items: bytes) -> list[FetchAttribute]:
    line = memoryview(b" 1 (%b)\r\n" % items)
    command, _ = ModseqFetchCommand.parse(line, Params(tag=b"a"))  # MODSEQ too
    assert isinstance(command, FetchCommand)
    return list(command.attributes)


def _pymaps_line(number: int, values: Iterable[FetchValue], loaded: LoadedMessage | None) -> bytes:
    """pymap's FETCH line of these values, with the message loaded (a value reads the
    loaded message from its provider: one provider for all of a message's values)."""
    response = FetchResponse(number, values)
    if loaded is None:
        return bytes(response)
    providers = {id(p): p for v in values if (p := getattr(v, "_get_loaded", None)) is not None}
    with ExitStack() as stack:
        for provider in providers.values():
            stack.enter_context(provider.apply(loaded))
        return bytes(response)


@pytest.mark.parametrize("items", ITEMS)
def test_a_plan_writes_the_line_pymaps_values_wrote(items: bytes) -> None:
    attributes = _attributes(items)
    selected = selected_mailbox()
    for flags in (frozenset(), frozenset({Seen}), frozenset({Flag(b"$Label1"), Flagged})):
        message = Message(4321, flags, mail_seq=9, modseq=17)
        loaded = LoadedMessage(message, FetchRequirement.CONTENT, MessageContent.parse(RAW))
        plan = FetchPlan(attributes)
        reference = GatewayAttributes(message, selected, attributes, plan.requirement)
        for content in (loaded, None):  # None: the placeholder pymap logs
            expected = _pymaps_line(3, reference, content)
            assert plan.line(3, message, selected, content) == expected


def test_a_line_merges_with_the_updates_fetch_as_pymaps_did() -> None:
    """A FETCH (FLAGS) of the command's untagged updates joins the FETCH line of the
    same message, its value winning, as in pymap's `CommandResponse`."""
    selected = selected_mailbox()
    message = Message(5, frozenset({Seen}), mail_seq=5)
    attributes = _attributes(b"UID FLAGS")
    update = FetchResponse(2, [FetchValue.of(FetchAttribute(b"FLAGS"), List([Flagged]))])
    ours = FetchOk(b"a", b"FETCH completed.")
    ours.add_untagged(FetchLine(2, message, selected, FetchPlan(attributes)))
    ours.add_untagged(FetchLine(3, message, selected, FetchPlan(attributes)), update)
    theirs = ResponseOk(b"a", b"FETCH completed.")
    for number in (2, 3):
        values = GatewayAttributes(message, selected, attributes, FetchRequirement.METADATA)
        theirs.add_untagged(FetchResponse(number, values))
    theirs.add_untagged(update)
    assert bytes(ours) == bytes(theirs)
    assert bytes(ours).count(b"* 2 FETCH") == 1


@pytest.mark.parametrize("items", ITEMS)
def test_a_merged_line_writes_what_pymaps_merge_wrote(items: bytes) -> None:
    """Another session's STORE adds `FETCH (FLAGS …)` updates for messages the FETCH
    lists: the line stays the plan's, with the update's values in pymap's order."""
    attributes = _attributes(items)
    selected = selected_mailbox()
    message = Message(4321, frozenset({Seen}), mail_seq=9, modseq=17)
    loaded = LoadedMessage(message, FetchRequirement.CONTENT, MessageContent.parse(RAW))
    plan = FetchPlan(attributes)
    update = FetchResponse(
        3,
        [
            FetchValue.of(FetchAttribute(b"FLAGS"), List([Flagged])),
            FetchValue.of(FetchAttribute(b"UID"), Number(4321)),
            FetchValue.of(FetchAttribute(b"MODSEQ"), List([Number(19)])),
        ],
    )
    merged = FetchLine(3, message, selected, plan).merge(update)
    assert isinstance(merged, FetchLine)
    again = merged.merge(again_update())
    reference = GatewayAttributes(message, selected, attributes, plan.requirement)
    for line, updates in ((merged, [update]), (again, [update, again_update()])):
        data = {value.attribute: value for value in reference}
        for each in updates:
            data |= each.data
        expected = _pymaps_line(3, data.values(), loaded)
        assert plan.line(3, message, selected, loaded, line.merged) == expected


def again_update() -> FetchResponse:
    return FetchResponse(3, [FetchValue.of(FetchAttribute(b"FLAGS"), List([]))])


def test_an_item_of_a_content_is_formatted_once() -> None:
    """The bytes of an item read from the content are kept beside that content
    (imap_view/fetch_memo.py): the same object again, another content's its own."""
    attributes = _attributes(b"BODY.PEEK[HEADER] BODYSTRUCTURE")
    selected = selected_mailbox()
    message = Message(1, frozenset(), mail_seq=1)
    plan = FetchPlan(attributes)
    content = MessageContent.parse(RAW)
    first = LoadedMessage(message, FetchRequirement.CONTENT, content)
    second = LoadedMessage(message, FetchRequirement.CONTENT, content)
    other = LoadedMessage(
        message, FetchRequirement.CONTENT, MessageContent.parse(RAW.replace(b"h=C3=A9", b"ho"))
    )
    one, two, three = (plan.line(1, message, selected, x) for x in (first, second, other))
    assert one == two and one != three
    text, part = _attributes(b"BODY.PEEK[TEXT] BODY.PEEK[1]")
    render = remembered(text, lambda m, s, loaded: bytes(List([Number(len(RAW))])))
    assert render(message, selected, first) is render(message, selected, second)
    big = remembered(part, lambda m, s, loaded: b"x" * (MAX_BYTES + 1))  # not kept
    assert big(message, selected, first) is not big(message, selected, second)


def test_internaldate_is_written_as_pymap_wrote_it() -> None:
    """INTERNALDATE kept per date and zone (imap_view/fetch_lines.py): the same moment
    in two zones is written in each."""
    attributes = _attributes(b"UID INTERNALDATE")
    selected = selected_mailbox()
    plan = FetchPlan(attributes)
    moment = datetime(2026, 12, 4, 9, 30, 5, tzinfo=UTC)
    for when in (moment, moment.astimezone(timezone(timedelta(hours=8))), moment, moment):
        message = DictMessage(7, when, frozenset())  # pymap's own, holding its date
        reference = GatewayAttributes(message, selected, attributes, plan.requirement)
        assert plan.line(1, message, selected, None) == _pymaps_line(1, reference, None)

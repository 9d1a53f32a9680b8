"""imap_view/fetch_lines.py writes the FETCH lines pymap's values wrote."""

from __future__ import annotations

import pytest
from pymap.mime import MessageContent
from pymap.parsing import Params
from pymap.parsing.command.select import FetchCommand
from pymap.parsing.primitives import List
from pymap.parsing.response import ResponseOk
from pymap.parsing.response.specials import FetchResponse
from pymap.parsing.specials import FetchAttribute, FetchRequirement, FetchValue
from pymap.parsing.specials.flag import Flag, Flagged, Seen

from imap_view.condstore_parsing import ModseqFetchCommand
from imap_view.fetch_lines import FetchLine, FetchPlan, GatewayAttributes
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


def _pymaps_line(number: int, values: GatewayAttributes, loaded: LoadedMessage | None) -> bytes:
    response = FetchResponse(number, values)
    if loaded is None:
        return bytes(response)
    with values._get_loaded.apply(loaded):
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

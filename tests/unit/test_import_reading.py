"""Reading archives for `agentmail import`: the message reader (fuzzed), the import
order, mboxrd quoting, and how external participants render."""

from __future__ import annotations

import mailbox
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.archive.exporting import mboxrd_entry
from core.archive.order import import_order
from core.archive.parse import Header, Malformed, read_header, read_message, synthetic_message_id
from core.archive.sources import mboxrd_unquote
from core.identity.external import External, cc_party, stored_party
from core.mail.imported import thread_subject
from core.rendering.parse import parse_rendered
from core.rendering.render import render_mail
from core.store.models import Mail
from tests.support.mail_archive import message

DOMAIN = "agentmail.localhost"
WHEN = datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_either_read_or_are_malformed(raw: bytes) -> None:
    read_header(raw)  # never fails: ordering must go on
    try:
        parsed = read_message(raw, 1000)
    except Malformed as error:
        assert str(error)
        return
    assert parsed.sender and (parsed.to or parsed.cc)


header_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=40
)


@settings(max_examples=200, deadline=None)
@given(subject=header_text, body=st.text(max_size=200), garbage=st.binary(max_size=60))
def test_generated_messages_read_back(subject: str, body: str, garbage: bytes) -> None:
    raw = message(
        "<m1@example.org>", "Bob <bob@example.org>", ["alice@agentmail.localhost"],
        "s", "b", WHEN, parents=["<p0@x>", "<p1@x>"],
        attachments=[("a.bin", garbage)],
    )  # fmt: skip
    raw = raw.replace(b"Subject: s\n", b"Subject: " + subject.encode("utf-8", "replace") + b"\n")
    raw = raw.replace(b"\n\nb\n", b"\n\n" + body.replace("\r", "").encode() + b"\n")
    parsed = read_message(raw, 1000)
    assert parsed.message_id == "<m1@example.org>"
    assert parsed.replies_to == ("<p1@x>", "<p0@x>")
    assert parsed.sender == "bob@example.org" and parsed.to == ["alice@agentmail.localhost"]
    assert parsed.date == WHEN
    if "=?" not in subject:  # else RFC 2047 encoded words, decoded
        assert parsed.subject == " ".join(subject.split()).replace("\x00", "\ufffd")
    expected_body = body.replace("\r", "").removesuffix("\n").replace("\x00", "\ufffd")
    assert parsed.body == expected_body  # NUL, which PostgreSQL refuses in text, is U+FFFD
    assert parsed.attachments == [("a.bin", "application/octet-stream", garbage)]


def test_reasons_for_refusing_a_message() -> None:
    with pytest.raises(Malformed, match="no From address"):
        read_message(b"To: a@b.c\n\nx\n", 100)
    with pytest.raises(Malformed, match="no To or Cc address"):
        read_message(b"From: a@b.c\nTo: undisclosed-recipients:;\n\nx\n", 100)
    with pytest.raises(Malformed, match="attachment of 300 bytes"):
        big = [("x", b"0" * 300)]
        read_message(message(None, "a@b.c", ["d@e.f"], "s", "b", WHEN, attachments=big), 100)
    only_cc = read_message(b"From: a@b.c\nCc: d@e.f\nDate: nonsense\n\nx\n", 100)
    assert only_cc.cc == ["d@e.f"] and only_cc.date is None


def test_html_only_mail_becomes_markdown_and_the_renderer_break_is_dropped() -> None:
    raw = b"From: a@b.c\nTo: d@e.f\nContent-Type: text/html\n\n<p>Hello <b>you</b></p>\n"
    assert read_message(raw, 100).body == "Hello **you**"
    assert read_message(b"From: a@b.c\nTo: d@e.f\n\nline\n\n", 100).body == "line\n"


def test_synthetic_ids_are_stable_per_content() -> None:
    one = synthetic_message_id(b"abc", DOMAIN)
    assert one == synthetic_message_id(b"abc", DOMAIN) != synthetic_message_id(b"abd", DOMAIN)
    assert one.startswith("<") and one.endswith(f"@{DOMAIN}>")


def _header(message_id: str | None, *replies: str, minute: int | None = 0) -> Header:
    date = WHEN + timedelta(minutes=minute) if minute is not None else None
    return Header(message_id, tuple(replies), date)


@given(st.data())
def test_parents_always_come_before_their_replies(data: st.DataObject) -> None:
    size = data.draw(st.integers(1, 30))
    parents = [data.draw(st.integers(-1, i - 1)) if i else -1 for i in range(size)]
    minutes = data.draw(st.lists(st.integers(0, 5) | st.none(), min_size=size, max_size=size))
    headers = [
        _header(f"<{i}@x>", *([f"<{parents[i]}@x>"] if parents[i] >= 0 else []), minute=minutes[i])
        for i in range(size)
    ]
    shuffled = data.draw(st.permutations(range(size)))
    order = import_order([headers[i] for i in shuffled])
    assert sorted(order) == list(range(size))
    position = {shuffled[index]: n for n, index in enumerate(order)}
    for child, parent in enumerate(parents):
        if parent >= 0:
            assert position[parent] < position[child]


def test_order_is_by_date_and_survives_reference_cycles() -> None:
    headers = [
        _header("<late@x>", minute=9),
        _header("<a@x>", "<b@x>", minute=1),
        _header("<b@x>", "<a@x>", minute=2),
        _header(None, minute=None),
        _header("<early@x>", minute=0),
    ]
    assert import_order(headers) == [4, 2, 1, 0, 3]


@given(st.lists(st.binary(max_size=300), max_size=8))
def test_mboxrd_keeps_every_message_exactly(bodies: list[bytes]) -> None:
    raws = [b"Subject: x\n\n" + body.replace(b"\r", b"") + b"\n" for body in bodies]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.mbox"
        path.write_bytes(b"".join(mboxrd_entry(raw, 0.0) for raw in raws))
        box = mailbox.mbox(path, create=False)
        try:
            assert [mboxrd_unquote(box.get_bytes(k)) for k in box.iterkeys()] == raws
        finally:
            box.close()


def test_external_participants_render_with_their_own_address() -> None:
    mail = Mail(
        id="m1", session_id="s1", parent_id=None, from_name="", from_path="Bob.X@partner.example",
        to_name="alice", to_path="", cc=["mailto:dan@elsewhere.example", "carol@"],
        subject="Hi", body="text", mail_type="normal", auto=False, message_id="<m1@x>",
        created_at=WHEN, options=None, permission_state=None,
    )  # fmt: skip
    parsed = parse_rendered(render_mail(mail, "hi", DOMAIN), DOMAIN)
    assert parsed.from_email == "Bob.X@partner.example" and parsed.from_ is None
    assert parsed.to_email == [f"alice++hi@{DOMAIN}"]
    assert parsed.cc_email == ["dan@elsewhere.example", f"carol++hi@{DOMAIN}"]
    assert stored_party("", "Bob.X@partner.example", "hi") == External("Bob.X@partner.example")
    assert cc_party("mailto:dan@elsewhere.example", "hi").native() == "mailto:dan@elsewhere.example"
    assert cc_party("carol@", "hi").native() == "carol@.hi"


@pytest.mark.parametrize(
    ("subject", "conversation"),
    [
        ("Re: Fwd: Plan", "Plan"),
        ("RE:plan", "plan"),
        ("Re[2]: AW: Bericht", "Bericht"),
        ("Re: ", "Re: "),  # nothing would be left
        ("Reply to the plan", "Reply to the plan"),
    ],
)
def test_a_thread_found_without_its_root_is_named_without_reply_prefixes(
    subject: str, conversation: str
) -> None:
    assert thread_subject(subject) == conversation

"""Property: parse → render → parse keeps every field of a rendering (core/rendering/render.py)."""

from __future__ import annotations

import operator
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from core.address import NEW_SESSION, Address
from core.rendering.parse import ParsedMail, parse_rendered
from core.rendering.render import AttachmentPart, render_mail
from core.store.models import Mail

D = "agentmail.test"
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


def _word(max_size: int) -> st.SearchStrategy[str]:
    return st.builds(
        operator.add, st.sampled_from(_ALNUM), st.text(_ALNUM + "_-", max_size=max_size - 1)
    )


names = st.lists(_word(10), min_size=1, max_size=3).map(".".join)
aliases = st.none() | _word(20).filter(lambda s: s != NEW_SESSION)
paths = st.text(
    st.sampled_from(list("/.+=-_~aZ09")) | st.characters(exclude_categories=("C", "Z")),
    max_size=20,
).filter(lambda p: "@" not in p)
addresses = st.builds(Address, names, paths)
printable = st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"))
# Stored subjects are stripped (core/mail/send.py, core/mail/routing.py), so only those are drawn.
subjects = st.text(printable, max_size=200).filter(lambda s: s == s.strip())
option_lists = st.lists(
    st.text(printable, min_size=1, max_size=40).filter(lambda s: s.strip() == s and s != ""),
    min_size=1,
    max_size=5,
    unique_by=str.casefold,
)
bodies = st.lists(st.text(printable | st.just("\t"), max_size=60), max_size=6).map("\n".join)
dates = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC)
)
message_ids = st.builds("<{}@{}>".format, _word(30), st.sampled_from([D, "ex.test"]))
files = st.builds(
    AttachmentPart,
    st.text(printable, min_size=1, max_size=30).filter(lambda s: s.strip() == s),
    st.sampled_from(["application/octet-stream", "text/plain", "image/png", "application/pdf"]),
    st.binary(max_size=300),
)


@st.composite
def mails(draw: st.DrawFn) -> tuple[Mail, str | None, list[str], list[AttachmentPart]]:
    sender, to = draw(addresses), draw(addresses)
    mail_type = draw(st.sampled_from(["normal", "permission_request"]))
    mail = Mail(
        id=draw(_word(36)),
        session_id=draw(_word(36)),
        from_name=sender.name,
        from_path=sender.path,
        to_name=to.name,
        to_path=to.path,
        cc=[a.native() for a in draw(st.lists(addresses, max_size=3))],
        subject=draw(subjects),
        body=draw(bodies),
        mail_type=mail_type,
        auto=draw(st.booleans()),
        message_id=draw(message_ids),
        created_at=draw(dates),
        options=draw(option_lists) if mail_type == "permission_request" else None,
        permission_state="open",
    )
    references = draw(st.lists(message_ids, max_size=3))
    return mail, draw(aliases), references, draw(st.lists(files, max_size=3))


def mail_of(parsed: ParsedMail) -> tuple[Mail, str | None, list[str], list[AttachmentPart]]:
    """A stored mail that renders as `parsed` (what an import would store)."""
    assert parsed.from_ is not None and parsed.to[0] is not None
    sender, to = parsed.from_, parsed.to[0]
    mail = Mail(
        id=parsed.mail_id,
        session_id=parsed.session_id,
        from_name=sender.name,
        from_path=sender.path,
        to_name=to.name,
        to_path=to.path,
        cc=[a.with_session(None).native() for a in parsed.cc if a is not None],
        subject=parsed.subject,
        body=parsed.body,
        mail_type=parsed.mail_type,
        auto=parsed.auto,
        message_id=parsed.message_id,
        created_at=parsed.date,
        options=parsed.options,
        permission_state="open",
    )
    files = [AttachmentPart(a.filename, a.content_type, a.content) for a in parsed.attachments]
    return mail, sender.session, parsed.references, files


@settings(max_examples=200, deadline=None)
@given(mails())
def test_parse_render_parse_keeps_every_field(
    case: tuple[Mail, str | None, list[str], list[AttachmentPart]],
) -> None:
    mail, alias, references, attached = case
    first = parse_rendered(
        render_mail(mail, alias, D, references=references, attachments=attached), D
    )

    # The rendering says what was stored (Date to the second, RFC 5322 §3.3).
    assert first.message_id == mail.message_id
    assert first.date == mail.created_at.replace(microsecond=0)
    assert first.from_ == Address(mail.from_name, mail.from_path, alias)
    assert first.reply_to == first.from_
    assert first.from_name == mail.from_name
    assert first.to == [Address(mail.to_name, mail.to_path, alias)]
    assert [a.with_session(None).native() if a else None for a in first.cc] == mail.cc
    assert all(a is not None and a.session == alias for a in first.cc)
    assert first.subject == mail.subject
    assert first.in_reply_to == (references[-1] if references else None)
    assert first.references == references
    assert first.body == mail.body
    assert first.auto == mail.auto
    assert (first.mail_id, first.session_id) == (mail.id, mail.session_id)
    assert first.mail_type == mail.mail_type
    assert first.options == mail.options
    assert first.permission_line is None  # open, no expiry
    assert [(a.filename, a.content_type, a.content) for a in first.attachments] == [
        (a.filename, a.content_type, a.read()) for a in attached
    ]

    # ...and rendering what was parsed reads back the same.
    again, alias2, references2, attached2 = mail_of(first)
    second = parse_rendered(
        render_mail(again, alias2, D, references=references2, attachments=attached2), D
    )
    assert second == first

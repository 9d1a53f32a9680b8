"""Rendering a stored mail as RFC 5322 (core/rendering/render.py): headers, parts, footer."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from core.address import Address
from core.rendering.parse import parse_rendered
from core.rendering.render import DECIDE_LINE, AttachmentPart, render_html, render_mail
from core.store.models import Mail

D = "mail.test"
WHEN = datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=UTC)


def make_mail(**fields: Any) -> Mail:
    values: dict[str, Any] = {
        "id": "11111111-2222-3333-4444-555555555555",
        "session_id": "66666666-7777-8888-9999-000000000000",
        "parent_id": None,
        "from_name": "pi",
        "from_path": "root",
        "to_name": "jianf",
        "to_path": "",
        "cc": [],
        "subject": "Status",
        "body": "Hello **world**",
        "mail_type": "normal",
        "auto": False,
        "message_id": f"<11111111-2222-3333-4444-555555555555@{D}>",
        "created_at": WHEN,
    }
    values.update(fields)
    return Mail(**values)


def as_message(raw: bytes) -> EmailMessage:
    return message_from_bytes(raw, policy=policy.default)


def test_headers() -> None:
    mail = make_mail(cc=["bob@ModelRouter", "carol@"])
    raw = render_mail(mail, "fix-leak", D, references=["<root@x>", "<parent@x>"])
    msg = as_message(raw)
    assert msg["Message-ID"] == mail.message_id
    assert msg["Date"].datetime == WHEN.replace(microsecond=0)
    assert msg["From"] == "pi <pi+root+fix-leak@mail.test>"
    assert msg["Reply-To"] == "pi <pi+root+fix-leak@mail.test>"
    assert msg["To"] == "jianf <jianf++fix-leak@mail.test>"
    assert (
        msg["Cc"] == "bob <bob+ModelRouter+fix-leak@mail.test>, carol <carol++fix-leak@mail.test>"
    )
    assert msg["Subject"] == "Status"
    assert msg["In-Reply-To"] == "<parent@x>"
    assert msg["References"] == "<root@x> <parent@x>"
    assert msg["MIME-Version"] == "1.0"
    assert msg["X-AgentMail-Mail-Id"] == mail.id
    assert msg["X-AgentMail-Session-Id"] == mail.session_id
    assert msg["X-AgentMail-Type"] == "normal"
    assert "Auto-Submitted" not in msg


def test_the_same_mail_renders_to_the_same_bytes() -> None:
    """IMAP serves one message per UID: a second FETCH must see the same bytes."""
    parts = [AttachmentPart("a.bin", "application/octet-stream", b"\x00\x01")]
    mail = make_mail()
    first = render_mail(mail, None, D, attachments=parts)
    assert first == render_mail(mail, None, D, attachments=parts)
    other = render_mail(make_mail(body="Hello again"), None, D, attachments=parts)
    boundary = as_message(first).get_boundary()
    assert boundary is not None
    assert boundary != as_message(other).get_boundary()
    assert len(as_message(first).get_payload()) == 2  # still parses into its parts


def test_crlf_line_endings_only() -> None:
    raw = render_mail(make_mail(body="one\ntwo\r\nthree"), None, D)
    assert b"\r\n" in raw
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert b"\r" not in raw.replace(b"\r\n", b"")


def test_no_parent_no_threading_headers_and_default_conversation() -> None:
    msg = as_message(render_mail(make_mail(), None, D))
    assert "In-Reply-To" not in msg
    assert "References" not in msg
    assert msg["From"].addresses[0].addr_spec == "pi+root@mail.test"
    assert msg["To"].addresses[0].addr_spec == "jianf@mail.test"
    assert "Cc" not in msg


def test_auto_submitted_only_for_auto_mails() -> None:
    auto = as_message(render_mail(make_mail(auto=True), "a1", D))
    assert auto["Auto-Submitted"] == "auto-generated"
    assert parse_rendered(render_mail(make_mail(auto=True), "a1", D), D).auto
    normal = render_mail(make_mail(auto=False), "a1", D)
    assert "Auto-Submitted" not in as_message(normal)
    assert not parse_rendered(normal, D).auto


def test_non_ascii_subject_names_and_filenames() -> None:
    mail = make_mail(subject="Grüße — 報告 ✓", from_path="/home/jürgen/项目")
    files = [AttachmentPart("résumé 報告.pdf", "application/pdf", b"%PDF-1.7\n\x00\xff")]
    raw = render_mail(mail, "fix-leak", D, attachments=files)
    raw.decode("ascii")  # RFC 2047 / RFC 2231 / path escapes: the message is 7-bit
    assert b"=?utf-8?" in raw
    assert b"filename*=utf-8''r%C3%A9sum%C3%A9" in raw
    parsed = parse_rendered(raw, D)
    assert parsed.subject == "Grüße — 報告 ✓"
    assert parsed.from_ == Address("pi", "/home/jürgen/项目", "fix-leak")
    assert parsed.attachments[0].filename == "résumé 報告.pdf"
    assert parsed.attachments[0].content == b"%PDF-1.7\n\x00\xff"
    assert parsed.attachments[0].content_type == "application/pdf"


def test_html_part_is_sanitised() -> None:
    body = (
        "Hi <script>alert('x')</script>\n\n"
        '<a href="https://e.test" onclick="steal()">link</a> '
        "[bad](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n[ok](https://ok.test)"
    )
    msg = as_message(render_mail(make_mail(body=body), None, D))
    html_part = msg.get_body(preferencelist=("html",))
    assert html_part is not None
    page = str(html_part.get_content())
    lowered = page.lower()
    for bad in ("<script", "alert('x')", "onclick", "onerror", 'href="javascript'):
        assert bad not in lowered, page
    assert 'href="https://ok.test"' in page
    assert 'rel="noopener noreferrer"' in page
    plain = msg.get_body(preferencelist=("plain",))
    assert plain is not None
    assert "<script>" in str(plain.get_content())  # the Markdown as written


def test_markdown_is_rendered() -> None:
    assert "<strong>world</strong>" in render_html("Hello **world**")
    assert "<li>a</li>" in render_html("- a\n- b")


def test_permission_options_numbered_in_both_parts() -> None:
    mail = make_mail(
        mail_type="permission_request",
        body="May I deploy?",
        options=["approve", "reject <now>"],
        permission_state="open",
    )
    raw = render_mail(mail, "dep", D)
    msg = as_message(raw)
    plain = msg.get_body(preferencelist=("plain",))
    html_part = msg.get_body(preferencelist=("html",))
    assert plain is not None and html_part is not None
    text = str(plain.get_content()).replace("\r\n", "\n")
    assert "  1. approve\n  2. reject <now>\n" + DECIDE_LINE + "\n" in text
    assert text.rstrip("\n").endswith(DECIDE_LINE)
    page = str(html_part.get_content())
    assert "<ol><li>approve</li><li>reject &lt;now&gt;</li></ol>" in page
    assert DECIDE_LINE in page
    assert msg["X-AgentMail-Type"] == "permission_request"
    parsed = parse_rendered(raw, D)
    assert parsed.body == "May I deploy?"
    assert parsed.options == ["approve", "reject <now>"]
    assert parsed.permission_line is None


def test_permission_decided_and_expired_states() -> None:
    decided = make_mail(
        mail_type="permission_request",
        options=["approve", "reject"],
        permission_state="decided",
        decision="approve",
        decided_by="jianf",
        decided_at=WHEN,
    )
    decided.decision_note = "go\n---\nOptions:\n  1. x\n ahead"  # cannot fake the footer
    raw = render_mail(decided, None, D)
    line = (
        "Decided: approve by jianf at 2026-03-04T05:06:07.000890Z"
        " (note: go --- Options: 1. x ahead)"
    )
    assert parse_text(raw).endswith(line + "\n")
    parsed = parse_rendered(raw, D)
    assert (parsed.body, parsed.options, parsed.permission_line) == (
        decided.body,
        ["approve", "reject"],
        line,
    )
    expired = make_mail(
        mail_type="permission_request",
        options=["approve"],
        permission_state="expired",
        expires_at=WHEN,
    )
    assert "Expired at 2026-03-04T05:06:07.000890Z" in parse_text(render_mail(expired, None, D))


def parse_text(raw: bytes) -> str:
    plain = as_message(raw).get_body(preferencelist=("plain",))
    assert plain is not None
    return str(plain.get_content()).replace("\r\n", "\n")


def test_structure_without_attachments() -> None:
    msg = as_message(render_mail(make_mail(), None, D))
    assert msg.get_content_type() == "multipart/alternative"
    kinds = [part.get_content_type() for part in msg.iter_parts()]
    assert kinds == ["text/plain", "text/html"]
    assert all(part.get_content_charset() == "utf-8" for part in msg.iter_parts())
    assert all("MIME-Version" not in part for part in msg.iter_parts())


def test_structure_with_attachments() -> None:
    calls: list[str] = []

    def reader() -> bytes:
        calls.append("read")
        return b"\x89PNG\r\n"

    files = [
        AttachmentPart("notes.txt", "text/plain", b"plain\nnotes"),
        AttachmentPart("image.png", "image/png", reader),
        AttachmentPart("blob", "", b"\x00"),
    ]
    msg = as_message(render_mail(make_mail(), None, D, attachments=files))
    assert calls == ["read"]
    assert msg.get_content_type() == "multipart/mixed"
    parts = list(msg.iter_parts())
    assert parts[0].get_content_type() == "multipart/alternative"
    kinds = [part.get_content_type() for part in parts[1:]]
    assert kinds == ["text/plain", "image/png", "application/octet-stream"]
    for part, file in zip(parts[1:], files, strict=True):
        assert part.get_content_disposition() == "attachment"
        assert part.get_filename() == file.filename
        assert part["Content-Transfer-Encoding"] == "base64"
        assert part.get_payload(decode=True) == file.read()

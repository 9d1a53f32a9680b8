"""A stored mail as an RFC 5322 message: what IMAP serves and export writes.

`render_mail` is sync and pure given its inputs (attachment content comes as bytes
or a reader the caller supplies), so callers run it in a worker thread. The format
is described in docs/mail-format.md; `core.rendering.parse` reads it back.

Layout (RFC 2045/2046): `multipart/alternative` of `text/plain; charset=utf-8` (the
Markdown as written) and `text/html` (rendered and sanitised); with attachments, a
`multipart/mixed` holding that part and one part per attachment.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email import policy
from email.headerregistry import Address as HeaderAddress
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Final, Protocol

import nh3
from markdown_it import MarkdownIt

from core.identity.external import Party, cc_party, stored_party
from core.store.models import Mail, isoformat

__all__ = [
    "DECIDE_LINE",
    "FOOTER_MARK",
    "AttachmentPart",
    "header_parties",
    "permission_footer",
    "render_html",
    "render_mail",
]

DECIDE_LINE: Final = "Reply with the number or the text of an option on the first line to decide."
# Starts the permission footer of the text part; options are single lines, so the
# last occurrence in a rendering is always the footer's own.
FOOTER_MARK: Final = "\n---\nOptions:\n"
_MARKDOWN: Final = MarkdownIt("commonmark", {"html": True, "linkify": False})
_OCTET_STREAM: Final = "application/octet-stream"


class MailParties(Protocol):
    """The columns that name a mail's sender and recipients (a `Mail`, or a row of them)."""

    @property
    def from_name(self) -> str: ...
    @property
    def from_path(self) -> str: ...
    @property
    def to_name(self) -> str: ...
    @property
    def to_path(self) -> str: ...
    @property
    def cc(self) -> list[str] | None: ...


@dataclass(frozen=True, slots=True)
class AttachmentPart:
    """One attachment: its name, declared type and content (bytes or a reader)."""

    filename: str
    content_type: str
    content: bytes | Callable[[], bytes]

    def read(self) -> bytes:
        return self.content if isinstance(self.content, bytes) else self.content()


def render_html(markdown: str) -> str:
    """Markdown → HTML (CommonMark), then sanitised: no scripts, no event handlers,
    no `javascript:` links; every link gets `rel="noopener noreferrer"`."""
    return nh3.clean(_MARKDOWN.render(markdown), link_rel="noopener noreferrer")


def _state_line(mail: Mail) -> str | None:
    if mail.permission_state == "decided":
        line = f"Decided: {mail.decision}"
        if mail.decided_by:
            line += f" by {mail.decided_by}"
        if mail.decided_at is not None:
            line += f" at {isoformat(mail.decided_at)}"
        if mail.decision_note:  # one line, so the footer stays findable
            line += f" (note: {' '.join(mail.decision_note.split())})"
        return line
    if mail.permission_state == "expired":
        when = f" at {isoformat(mail.expires_at)}" if mail.expires_at is not None else ""
        return f"Expired{when}: no decision was made."
    if mail.expires_at is not None:
        return f"Open until {isoformat(mail.expires_at)}."
    return None


def permission_footer(mail: Mail) -> tuple[str, str]:
    """The footer of a permission request: (plain text, HTML); empty for other mails."""
    if mail.mail_type != "permission_request" or not mail.options:
        return "", ""
    state = _state_line(mail)
    lines = [f"  {i}. {option}" for i, option in enumerate(mail.options, 1)]
    text = FOOTER_MARK + "\n".join(lines) + "\n" + DECIDE_LINE + "\n"
    items = "".join(f"<li>{html.escape(option)}</li>" for option in mail.options)
    markup = f"<hr><p>Options:</p><ol>{items}</ol><p>{html.escape(DECIDE_LINE)}</p>"
    if state is not None:
        text += state + "\n"
        markup += f"<p>{html.escape(state)}</p>"
    return text, markup


def _mailbox(address: Party, domain: str) -> HeaderAddress:
    """An RFC 5322 §3.4 mailbox: display name = the name, addr-spec = the email form
    (an external participant's own address, core/identity/external.py)."""
    return HeaderAddress(display_name=address.name, addr_spec=address.email(domain))


def _msg_ids(ids: Sequence[str]) -> str:
    return " ".join(ids)


def render_mail(
    mail: Mail,
    alias: str | None,
    domain: str,
    *,
    references: Sequence[str] = (),
    attachments: Sequence[AttachmentPart] = (),
) -> bytes:
    """Render `mail` as RFC 5322 bytes with CRLF line endings (`email.policy.SMTP`).

    `alias` is the conversation's alias, put in every address so that a plain Reply
    lands in the same conversation. `references` are the Message-IDs of the parent
    chain, oldest first (at least the parent's); the last one is `In-Reply-To`
    (RFC 5322 §3.6.4). `auto` mails carry `Auto-Submitted: auto-generated` (RFC 3834).
    """
    msg = _with_headers(mail, alias, domain, references)
    footer_text, footer_html = permission_footer(mail)
    # One final "\n" always: the library ends a text part with a line break anyway,
    # and the parser strips exactly one, so the body keeps its own trailing breaks.
    msg.set_content(mail.body + "\n" + footer_text, charset="utf-8")
    page = render_html(mail.body) + (nh3.clean(footer_html) if footer_html else "")
    msg.add_alternative(page, subtype="html", charset="utf-8")
    for part in attachments:
        maintype, _, subtype = (part.content_type or _OCTET_STREAM).partition("/")
        if not subtype or maintype == "multipart":
            maintype, subtype = _OCTET_STREAM.split("/")
        # Base64 keeps the bytes exact (RFC 2045 §6.8); non-ASCII names use RFC 2231.
        msg.add_attachment(part.read(), maintype=maintype, subtype=subtype, filename=part.filename)
    _fix_boundaries(msg, mail)
    for sub in msg.walk():
        if sub is not msg:
            del sub["MIME-Version"]  # RFC 2045 §4: the top level carries it
    return msg.as_bytes()


def render_header(
    mail: Mail, alias: str | None, domain: str, *, references: Sequence[str] = ()
) -> bytes:
    """The header fields of `render_mail`'s rendering that describe the mail (all but
    the Content-* fields of its body), ending with the empty line: what IMAP's
    ENVELOPE reads, without rendering the body (Markdown, HTML, attachments)."""
    return _with_headers(mail, alias, domain, references).as_bytes()


def header_parties(mail: Mail | MailParties, alias: str | None) -> tuple[Party, Party, list[Party]]:
    """The From (and Reply-To), To and Cc of the mail's rendering: every internal address
    with the conversation's alias. IMAP's SORT reads them from here too
    (core/rendering/sort_rows.py), so its keys are the rendering's."""
    sender = stored_party(mail.from_name, mail.from_path, alias)
    to = stored_party(mail.to_name, mail.to_path, alias)
    return sender, to, [cc_party(text, alias) for text in mail.cc or []]


def _with_headers(
    mail: Mail, alias: str | None, domain: str, references: Sequence[str]
) -> EmailMessage:
    sender, to, cc = header_parties(mail, alias)

    msg = EmailMessage(policy=policy.SMTP)
    msg["Message-ID"] = mail.message_id
    msg["Date"] = format_datetime(mail.created_at)
    msg["From"] = _mailbox(sender, domain)
    msg["Reply-To"] = _mailbox(sender, domain)
    msg["To"] = _mailbox(to, domain)
    if cc:
        msg["Cc"] = [_mailbox(a, domain) for a in cc]
    msg["Subject"] = mail.subject  # RFC 2047 encoded words when not ASCII
    if references:
        msg["In-Reply-To"] = references[-1]
        msg["References"] = _msg_ids(references)
    msg["MIME-Version"] = "1.0"
    if mail.auto:
        msg["Auto-Submitted"] = "auto-generated"
    msg["X-AgentMail-Mail-Id"] = mail.id
    msg["X-AgentMail-Session-Id"] = mail.session_id
    msg["X-AgentMail-Type"] = mail.mail_type
    return msg


def _fix_boundaries(msg: EmailMessage, mail: Mail) -> None:
    """The same mail renders to the same bytes every time: IMAP serves one message
    under one UID across commands (a partial FETCH continues where the last one
    stopped), so the random boundaries of `email` will not do. Derived from a hash
    of the content, a boundary cannot be written into that content in advance."""
    digest = hashlib.sha256(f"{mail.id}\n{mail.body}".encode()).hexdigest()[:32]
    number = 0
    for part in msg.walk():
        if part.is_multipart():
            number += 1
            part.set_boundary(f"=_am_{digest}_{number}")

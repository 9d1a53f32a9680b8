"""Reading a rendering (core/rendering/render.py) back into its fields.

Used by the round-trip tests and as the reference reader of docs/mail-format.md:
addresses at the gateway's domain go back to native form through the one parser
(core/address/); the text part loses its permission footer and the one final line
break the renderer adds. Line breaks come back as `\\n` (CRLF on the wire, RFC 5322
§2.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.headerregistry import Address as HeaderAddress
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from typing import cast

from core.address import Address, parse_email
from core.rendering.render import DECIDE_LINE, FOOTER_MARK

__all__ = ["ParsedAttachment", "ParsedMail", "parse_rendered"]


@dataclass(frozen=True, slots=True)
class ParsedAttachment:
    filename: str
    content_type: str
    content: bytes


@dataclass(slots=True)
class ParsedMail:
    """The fields of one rendered message; addresses are `None` off the gateway's domain."""

    message_id: str
    date: datetime
    from_name: str
    from_email: str
    from_: Address | None
    reply_to: Address | None
    to: list[Address | None]
    to_email: list[str]
    cc: list[Address | None]
    cc_email: list[str]
    subject: str
    in_reply_to: str | None
    references: list[str]
    body: str
    html: str | None
    auto_submitted: str | None
    mail_id: str | None = None
    session_id: str | None = None
    mail_type: str | None = None
    options: list[str] | None = None  # a permission request's, from its footer
    permission_line: str | None = None  # the footer's state line, if any
    attachments: list[ParsedAttachment] = field(default_factory=list)

    @property
    def auto(self) -> bool:
        """RFC 3834 §5: anything but `no` marks an automatic message."""
        return self.auto_submitted is not None and self.auto_submitted.lower() != "no"


def _addresses(msg: EmailMessage, name: str) -> list[HeaderAddress]:
    header = msg.get(name)
    if header is None:
        return []
    return [a for group in header.groups for a in group.addresses]


def _native(address: HeaderAddress, domain: str) -> Address | None:
    if address.domain.lower() != domain.lower():
        return None
    return parse_email(address.addr_spec, domain)


def _header(msg: EmailMessage, name: str) -> str | None:
    value = msg.get(name)
    return None if value is None else str(value).strip()


_OPTION_LINE = re.compile(r"  (\d+)\. (.*)")


@dataclass(frozen=True, slots=True)
class _Footer:
    options: list[str]
    state: str | None


def _text_body(text: str, has_footer: bool) -> tuple[str, _Footer | None]:
    """The body without the renderer's final line break, and the permission footer."""
    text = text.replace("\r\n", "\n")
    footer = None
    cut = text.rfind(FOOTER_MARK) if has_footer else -1
    if cut >= 0:
        options: list[str] = []
        lines = text[cut + len(FOOTER_MARK) :].split("\n")
        for i, line in enumerate(lines):
            match = _OPTION_LINE.fullmatch(line)
            if match is not None and int(match[1]) == len(options) + 1:
                options.append(match[2])
                continue
            rest = [x for x in lines[i + 1 :] if x] if line == DECIDE_LINE else []
            footer = _Footer(options, rest[0] if rest else None)
            break
        text = text[:cut]  # ends with the renderer's final break; dropped below
    return text.removesuffix("\n"), footer


def parse_rendered(raw: bytes, domain: str) -> ParsedMail:
    """Parse one rendering; raises `InvalidAddress` for a malformed gateway address."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    senders = _addresses(msg, "From")
    if len(senders) != 1:
        raise ValueError(f"expected one From address, found {len(senders)}")
    sender = senders[0]
    reply_to = _addresses(msg, "Reply-To")
    to = _addresses(msg, "To")
    cc = _addresses(msg, "Cc")
    mail_type = _header(msg, "X-AgentMail-Type")

    plain = msg.get_body(preferencelist=("plain",))
    rich = msg.get_body(preferencelist=("html",))
    body, footer = "", None
    if plain is not None:
        text = str(plain.get_content())
        body, footer = _text_body(text, mail_type == "permission_request")
    attachments = [
        ParsedAttachment(
            filename=part.get_filename() or "",
            content_type=part.get_content_type(),
            content=cast(bytes, part.get_payload(decode=True)) or b"",
        )
        for part in msg.iter_attachments()
        if part.get_content_disposition() == "attachment"
    ]
    date_text = _header(msg, "Date")
    if date_text is None:
        raise ValueError("no Date header")
    return ParsedMail(
        message_id=_header(msg, "Message-ID") or "",
        date=parsedate_to_datetime(date_text),
        from_name=sender.display_name,
        from_email=sender.addr_spec,
        from_=_native(sender, domain),
        reply_to=_native(reply_to[0], domain) if reply_to else None,
        to=[_native(a, domain) for a in to],
        to_email=[a.addr_spec for a in to],
        cc=[_native(a, domain) for a in cc],
        cc_email=[a.addr_spec for a in cc],
        subject=str(msg.get("Subject", "")),
        in_reply_to=_header(msg, "In-Reply-To"),
        references=(_header(msg, "References") or "").split(),
        body=body,
        html=str(rich.get_content()) if rich is not None else None,
        auto_submitted=_header(msg, "Auto-Submitted"),
        mail_id=_header(msg, "X-AgentMail-Mail-Id"),
        session_id=_header(msg, "X-AgentMail-Session-Id"),
        mail_type=mail_type,
        options=footer.options if footer is not None else None,
        permission_line=footer.state if footer is not None else None,
        attachments=attachments,
    )

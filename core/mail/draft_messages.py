"""A message a mail client saved in its Drafts folder, made a draft (IMAP APPEND).

Clients save drafts as whole RFC 5322 messages (RFC 6154 `\\Drafts`); here such a
message becomes a draft of `core/mail/drafts.py`, the rows the web UI edits, and a
version that carries the Message-ID of a draft already kept replaces it. The way
back, a draft as a message, is `core/mailboxes/drafts.py`.
"""

from __future__ import annotations

import asyncio
import re
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses

from sqlalchemy import select

from core.mail.drafts import DraftInput, save_draft
from core.mail.html_text import html_to_markdown
from core.mail.message_bytes import header_block, parse_bytes
from core.mime.structure import over_bound
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Draft

_MSGID = re.compile(r"<[^<>\s]{1,250}>")  # the column holds 255

# Drafts up to this size are parsed on the loop, with HTML up to the second (as SMTP
# does: smtp_in/handler.py).
INLINE_BYTES = 32 * 1024
INLINE_HTML_BYTES = 4 * 1024
_HTML = re.compile(rb"text/html", re.IGNORECASE)


def parse_draft(raw: bytes) -> tuple[DraftInput, str | None]:
    """What a client's draft says (To, Cc, Subject, its text) and its Message-ID.

    The first To address is the draft's recipient, every other To or Cc address
    a cc; the text/plain body is the draft's Markdown (else the HTML one, converted,
    within core/mail/html_text.py's bounds). A draft whose MIME tree is over the
    bounds of core/mime/bounds.py is read for its header fields only: its text
    is a note saying why.
    """
    over = over_bound(raw)
    body = ""
    if over is None:
        try:
            message = parse_bytes(raw, policy.default)
            body = _body(message)
        except RecursionError:  # a tree the scan misjudged: read as one over the bounds
            over = "it nests too deep to be read"
    if over is not None:
        message = parse_bytes(header_block(raw), policy.default)
        body = f"(The text of this draft was not read: {over}.)"
    to = _addresses(message, "To")
    cc = to[1:] + _addresses(message, "Cc")
    found = _MSGID.search(str(message.get("Message-ID", "")))
    draft = DraftInput(
        to=to[0] if to else None,
        cc=cc,
        subject=" ".join(str(message.get("Subject", "")).split())[:998],
        body=body.replace("\r\n", "\n").replace("\x00", "\ufffd"),
    )
    return draft, found.group(0) if found else None


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if not isinstance(part, EmailMessage):
        return ""
    text = str(part.get_content())
    return text if part.get_content_subtype() == "plain" else html_to_markdown(text)


def _addresses(message: EmailMessage, name: str) -> list[str]:
    values = [str(value) for value in message.get_all(name, [])]
    return [address for _, address in getaddresses(values) if address]


async def append_draft(store: Store, domain: str, owner: str, raw: bytes) -> int:
    """Save an APPENDed draft (replacing the version with its Message-ID); its UID.
    A big draft is parsed in a worker thread, so the loop keeps serving others."""
    if len(raw) > INLINE_BYTES or (len(raw) > INLINE_HTML_BYTES and _HTML.search(raw)):
        draft, message_id = await asyncio.to_thread(parse_draft, raw)
    else:
        draft, message_id = parse_draft(raw)
    human = Principal(kind="human", name=owner)
    saved = await save_draft(store, domain, human, draft, message_id=message_id)
    uid = await store.read(
        lambda session: session.scalar(select(Draft.imap_uid).where(Draft.id == saved.draft_id))
    )
    assert uid is not None
    return int(uid)

"""A human's drafts as the IMAP `Drafts` folder: each draft a message, APPEND saves one.

Mail clients keep drafts in the `\\Drafts` folder (RFC 6154): they APPEND each
autosaved version and then delete the version before it (STORE `\\Deleted`,
EXPUNGE). Here an APPENDed message becomes a draft of `core/mail/drafts.py`, the same
rows the web UI edits; a version that carries the Message-ID of a draft already
kept replaces it. Each saved version has a new UID in Drafts (`drafts.imap_uid`).

A draft is not a mail, so it has no mail seq; where IMAP code expects one, a
draft stands as minus its UID (`draft_seq`): mail seqs start at 1, so the two
never meet.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.address import parse_native
from core.mail.drafts import DraftInput, save_draft
from core.mail.html_text import html_to_markdown
from core.mail.message_bytes import header_block, parse_bytes
from core.mime.structure import over_bound
from core.principal import Principal
from core.store.engine import Store, wake_after_commit
from core.store.models import Delivery, Draft, Mail

__all__ = [
    "append_draft",
    "delete_drafts",
    "draft_count",
    "draft_rows",
    "draft_seq",
    "is_draft_seq",
    "parse_draft",
    "render_draft",
    "render_drafts",
]

_MSGID = re.compile(r"<[^<>\s]{1,250}>")  # the column holds 255


# Drafts up to this size are parsed on the loop, with HTML up to the second (as SMTP
# does: smtp_in/handler.py).
INLINE_BYTES = 32 * 1024
INLINE_HTML_BYTES = 4 * 1024
_HTML = re.compile(rb"text/html", re.IGNORECASE)


def draft_seq(uid: int) -> int:
    return -uid


def is_draft_seq(seq: int) -> bool:
    return seq < 0


def draft_rows(session: Session, owner: str) -> list[tuple[int, datetime]]:
    """(UID, saved at) of every draft of `owner`, ascending UID."""
    query = (
        select(Draft.imap_uid, Draft.updated_at)
        .where(Draft.owner == owner, Draft.imap_uid.is_not(None))
        .order_by(Draft.imap_uid)
    )
    return [(int(uid), saved) for uid, saved in session.execute(query) if uid is not None]


def draft_dates(session: Session, owner: str, seqs: Sequence[int]) -> dict[int, datetime]:
    """When each of these drafts (by its negative seq) was last saved: INTERNALDATE."""
    wanted = set(seqs)
    return {
        seq: saved for uid, saved in draft_rows(session, owner) if (seq := draft_seq(uid)) in wanted
    }


def draft_count(session: Session, owner: str) -> int:
    query = select(func.count()).where(Draft.owner == owner, Draft.imap_uid.is_not(None))
    return int(session.scalar(query) or 0)


def render_drafts(
    session: Session, owner: str, seqs: Sequence[int], domain: str
) -> dict[int, bytes]:
    """The drafts behind these draft seqs as RFC 5322 messages, by seq."""
    uids = [-seq for seq in seqs if is_draft_seq(seq)]
    if not uids:
        return {}
    drafts = session.scalars(select(Draft).where(Draft.owner == owner, Draft.imap_uid.in_(uids)))
    rendered = {}
    for draft in drafts:
        assert draft.imap_uid is not None
        rendered[draft_seq(draft.imap_uid)] = render_draft(draft, domain, _reply_id(session, draft))
    return rendered


def _reply_id(session: Session, draft: Draft) -> str | None:
    """The Message-ID of the mail the draft answers, if its owner sent or received it:
    a draft may name any id, and must not reveal another conversation's Message-ID."""
    if draft.reply_to is None:
        return None
    received = select(Delivery.mail_seq).where(Delivery.recipient == draft.owner)
    return session.scalar(
        select(Mail.message_id).where(
            Mail.id == draft.reply_to, (Mail.from_name == draft.owner) | Mail.seq.in_(received)
        )
    )


def render_draft(draft: Draft, domain: str, in_reply_to: str | None = None) -> bytes:
    """A draft as an RFC 5322 message (what IMAP serves for it)."""
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = parse_native(f"{draft.owner}@").email(domain)
    if draft.to is not None:
        message["To"] = parse_native(draft.to).email(domain)
    if draft.cc:
        message["Cc"] = ", ".join(parse_native(text).email(domain) for text in draft.cc)
    message["Subject"] = draft.subject
    message["Date"] = format_datetime(draft.updated_at)
    message["Message-ID"] = draft.message_id or f"<draft.{draft.id}.{draft.imap_uid}@{domain}>"
    if in_reply_to is not None:
        message["In-Reply-To"] = in_reply_to
    message["X-AgentMail-Draft"] = draft.id
    message.set_content(draft.body)
    return message.as_bytes()


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


async def delete_drafts(store: Store, owner: str, uids: Sequence[int]) -> int:
    """EXPUNGE in Drafts: these versions are deleted (a draft is not mail: no Trash)."""
    if not uids:
        return 0

    def run(session: Session) -> int:
        gone = session.execute(
            delete(Draft).where(Draft.owner == owner, Draft.imap_uid.in_(list(uids)))
        ).rowcount  # type: ignore[attr-defined]
        if gone:
            wake_after_commit(session, [owner])
        return int(gone)

    return await store.write(run)

"""A human's drafts as the `Drafts` folder: each draft a message with a UID of its own.

Mail clients keep drafts in the `\\Drafts` folder (RFC 6154): they APPEND each
autosaved version and then delete the version before it (STORE `\\Deleted`,
EXPUNGE). The folder shows the draft rows of `core/mail/drafts.py`, the ones the
web UI edits; an APPENDed message becomes one through `core/mail/draft_messages.py`.
Each saved version has a new UID in Drafts (`drafts.imap_uid`).

A draft is not a mail, so it has no mail seq; where folder code expects one, a
draft stands as minus its UID (`draft_seq`): mail seqs start at 1, so the two
never meet.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.address import parse_native
from core.store.engine import Store, wake_after_commit
from core.store.models import Delivery, Draft, Mail

__all__ = [
    "delete_drafts",
    "draft_count",
    "draft_rows",
    "draft_seq",
    "is_draft_seq",
    "render_draft",
    "render_drafts",
]


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


def draft_count(session: Session, owner: str, *, above_uid: int = 0) -> int:
    """How many drafts `owner` has in Drafts with a UID above `above_uid`."""
    query = select(func.count()).where(Draft.owner == owner, Draft.imap_uid > above_uid)
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

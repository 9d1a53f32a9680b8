"""A human's folders: which exist (created at login), each one's alias, and the counts
IMAP's STATUS and SELECT report.

The folders and their UIDs are filed by core/mailboxes/uids.py as mail is stored;
what is in a folder is read by core/mailboxes/contents.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, case, false, func, select
from sqlalchemy.orm import Session

from core.mailboxes.drafts import draft_count
from core.mailboxes.uids import (
    CONVERSATION_PREFIX,
    DRAFTS,
    FIXED_FOLDERS,
    SENT,
    create_folders,
)
from core.store.engine import Store
from core.store.models import Conversation, Delivery, ImapFolder, ImapUid, Mail

__all__ = [
    "FolderCounts",
    "FolderInfo",
    "ensure_folders",
    "folder_by_id",
    "folder_counts",
    "list_folders",
    "sent_uid",
]


@dataclass(frozen=True, slots=True)
class FolderInfo:
    id: int
    key: str
    uid_validity: int
    alias: str | None = None  # for a conversation's folder
    name: str | None = None  # for a personal folder (core/mailboxes/personal.py)

    @property
    def conversation_id(self) -> str | None:
        return (
            self.key[len(CONVERSATION_PREFIX) :]
            if self.key.startswith(CONVERSATION_PREFIX)
            else None
        )


async def ensure_folders(store: Store, owner: str) -> None:
    """Create the fixed folders a human may not have yet (at IMAP login)."""
    query = select(ImapFolder.key).where(
        ImapFolder.owner == owner, ImapFolder.key.in_(FIXED_FOLDERS)
    )
    existing = set(await store.read(lambda session: list(session.scalars(query))))
    if existing >= set(FIXED_FOLDERS):
        return
    await store.write(lambda session: create_folders(session, owner, FIXED_FOLDERS))


async def list_folders(store: Store, owner: str) -> list[FolderInfo]:
    """The human's folders; a conversation's folder carries its current alias."""

    def run(session: Session) -> list[FolderInfo]:
        rows = session.execute(
            select(ImapFolder.id, ImapFolder.key, ImapFolder.uid_validity, ImapFolder.name)
            .where(ImapFolder.owner == owner)
            .order_by(ImapFolder.id)
        ).all()
        folders = [FolderInfo(row.id, row.key, row.uid_validity, name=row.name) for row in rows]
        ids = [f.conversation_id for f in folders if f.conversation_id is not None]
        aliases: dict[str, str | None] = {}
        if ids:
            query = select(Conversation.id, Conversation.alias).where(Conversation.id.in_(ids))
            aliases = {row.id: row.alias for row in session.execute(query)}
        return [
            FolderInfo(f.id, f.key, f.uid_validity, aliases.get(f.conversation_id))
            if f.conversation_id is not None
            else f
            for f in folders
        ]

    return await store.read(run)


async def folder_by_id(store: Store, owner: str, folder_id: int) -> FolderInfo | None:
    """One folder of the human's by its id (the selected one), with its alias."""
    query = (
        select(
            ImapFolder.id,
            ImapFolder.key,
            ImapFolder.uid_validity,
            Conversation.alias,
            ImapFolder.name,
        )
        .outerjoin(Conversation, ImapFolder.key == CONVERSATION_PREFIX + Conversation.id)
        .where(ImapFolder.id == folder_id, ImapFolder.owner == owner)
    )
    row = await store.read(lambda session: session.execute(query).first())
    if row is None:
        return None
    return FolderInfo(row.id, row.key, row.uid_validity, row.alias, row.name)


@dataclass(frozen=True, slots=True)
class FolderCounts:
    exists: int
    unseen: int
    first_unseen: int | None  # its message sequence number
    next_uid: int
    highest_modseq: int = 0  # RFC 7162 §3.1.1 (Drafts keep none: imap_view says NOMODSEQ)
    recent: int = 0  # messages no session claimed as \Recent yet (core/mailboxes/recent.py)


async def folder_counts(store: Store, owner: str, folder: FolderInfo) -> FolderCounts:
    """What STATUS and SELECT report, counted in the database (no row per message);
    RECENT counts the messages above the folder's watermark (core/mailboxes/recent.py)."""
    unread = and_(Delivery.id.is_not(None), Delivery.is_read == false())

    def counted(*columns: Any) -> Select[Any]:
        query = (
            select(*columns)
            .select_from(ImapUid)
            .outerjoin(
                Delivery, and_(Delivery.mail_seq == ImapUid.mail_seq, Delivery.recipient == owner)
            )
            .where(ImapUid.folder_id == folder.id)
        )
        return query

    totals = counted(
        func.count(ImapUid.uid),
        func.count(case((unread, 1))),
        func.min(case((unread, ImapUid.uid))),
    )

    def run(session: Session) -> FolderCounts:
        counters = session.execute(
            select(ImapFolder.next_uid, ImapFolder.highest_modseq, ImapFolder.recent_uid).where(
                ImapFolder.id == folder.id
            )
        ).first()
        next_uid, modseq, recent_uid = (1, 0, 0) if counters is None else map(int, counters)
        if folder.key == DRAFTS:  # drafts are always seen
            recent = draft_count(session, owner, above_uid=recent_uid)
            return FolderCounts(draft_count(session, owner), 0, None, next_uid, recent=recent)
        above = case((ImapUid.uid > recent_uid, 1))
        exists, unseen, first_uid, recent = session.execute(
            totals.add_columns(func.count(above))
        ).one()
        position = None
        if first_uid is not None:
            before = counted(func.count(ImapUid.uid)).where(ImapUid.uid <= first_uid)
            position = session.scalar(before)
        return FolderCounts(int(exists), int(unseen), position, next_uid, modseq, int(recent))

    return await store.read(run)


async def sent_uid(store: Store, owner: str, message_id: str) -> int | None:
    """The Sent UID of the mail `owner` sent with this Message-ID, if there is one.

    A client that submitted a mail by SMTP then APPENDs its copy to Sent; that copy
    is this mail, already filed (RFC 4315's APPENDUID names it).
    """
    query = (
        select(ImapUid.uid)
        .join(ImapFolder, ImapFolder.id == ImapUid.folder_id)
        .join(Mail, Mail.seq == ImapUid.mail_seq)
        .where(ImapFolder.owner == owner, ImapFolder.key == SENT)
        .where(Mail.message_id == message_id, Mail.from_name == owner)
        .order_by(ImapUid.uid)
        .limit(1)
    )
    uid = await store.read(lambda session: session.scalar(query))
    return None if uid is None else int(uid)

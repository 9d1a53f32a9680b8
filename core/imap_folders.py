"""A human's IMAP folders as the store sees them: which exist, what is in each, the flags.

The folders and their UIDs are filed by core/imap_uids.py as mail is stored;
this module reads them for imap_view/. The flags are the recipient's delivery:
`\\Seen` is `is_read` (shared with REST and the web UI), `\\Flagged` and
`\\Answered` are `flagged` and `answered` (core/placement.py changes them). A mail
the human only sent (no delivery of their own) is always seen and has no other
flag. `Drafts` holds drafts, not mails (core/draft_folder.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, case, false, func, select, true
from sqlalchemy.orm import Session

from core.draft_folder import draft_count, draft_rows, draft_seq
from core.imap_uids import DECISION, DRAFTS, FIXED_FOLDERS, SENT, SESSION_PREFIX, create_folders
from core.models import Conversation, Delivery, ImapFolder, ImapUid, Mail
from core.store import Store

__all__ = [
    "FolderCounts",
    "FolderInfo",
    "FolderMessage",
    "FolderState",
    "ensure_folders",
    "folder_by_id",
    "folder_counts",
    "folder_state",
    "list_folders",
    "sent_uid",
]


@dataclass(frozen=True, slots=True)
class FolderInfo:
    id: int
    key: str
    uid_validity: int
    alias: str | None = None  # for a conversation's folder

    @property
    def conversation_id(self) -> str | None:
        return self.key[len(SESSION_PREFIX) :] if self.key.startswith(SESSION_PREFIX) else None


@dataclass(frozen=True, slots=True)
class FolderMessage:
    uid: int
    mail_seq: int
    seen: bool
    created_at: datetime
    flagged: bool = False
    answered: bool = False


@dataclass(frozen=True, slots=True)
class FolderState:
    folder: FolderInfo
    next_uid: int
    messages: list[FolderMessage]  # ascending UID


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
            select(ImapFolder.id, ImapFolder.key, ImapFolder.uid_validity)
            .where(ImapFolder.owner == owner)
            .order_by(ImapFolder.id)
        ).all()
        folders = [FolderInfo(row.id, row.key, row.uid_validity) for row in rows]
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
        select(ImapFolder.id, ImapFolder.key, ImapFolder.uid_validity, Conversation.alias)
        .outerjoin(Conversation, ImapFolder.key == SESSION_PREFIX + Conversation.id)
        .where(ImapFolder.id == folder_id, ImapFolder.owner == owner)
    )
    row = await store.read(lambda session: session.execute(query).first())
    return None if row is None else FolderInfo(row.id, row.key, row.uid_validity, row.alias)


async def folder_state(store: Store, owner: str, folder: FolderInfo) -> FolderState:
    """Every message of the folder with its UID and flags, in one snapshot."""
    if folder.key == DRAFTS:
        return await _drafts_state(store, owner, folder)
    seen = case((Delivery.id.is_(None), true()), else_=Delivery.is_read)
    query = (
        select(
            ImapUid.uid,
            ImapUid.mail_seq,
            seen.label("seen"),
            Mail.created_at,
            func.coalesce(Delivery.flagged, false()).label("flagged"),
            func.coalesce(Delivery.answered, false()).label("answered"),
        )
        .join(Mail, Mail.seq == ImapUid.mail_seq)
        .outerjoin(
            Delivery, and_(Delivery.mail_seq == ImapUid.mail_seq, Delivery.recipient == owner)
        )
        .where(ImapUid.folder_id == folder.id)
        .order_by(ImapUid.uid)
    )
    if folder.key == DECISION:  # only the requests still open
        query = query.where(Mail.permission_state == "open")

    def run(session: Session) -> FolderState:
        next_uid = session.scalar(select(ImapFolder.next_uid).where(ImapFolder.id == folder.id))
        messages = [
            FolderMessage(
                r.uid, r.mail_seq, bool(r.seen), r.created_at, bool(r.flagged), bool(r.answered)
            )
            for r in session.execute(query)
        ]
        return FolderState(folder, int(next_uid or 1), messages)

    return await store.read(run)


async def _drafts_state(store: Store, owner: str, folder: FolderInfo) -> FolderState:
    def run(session: Session) -> FolderState:
        next_uid = session.scalar(select(ImapFolder.next_uid).where(ImapFolder.id == folder.id))
        messages = [
            FolderMessage(uid, draft_seq(uid), True, saved)
            for uid, saved in draft_rows(session, owner)
        ]
        return FolderState(folder, int(next_uid or 1), messages)

    return await store.read(run)


@dataclass(frozen=True, slots=True)
class FolderCounts:
    exists: int
    unseen: int
    first_unseen: int | None  # its message sequence number
    next_uid: int


async def folder_counts(store: Store, owner: str, folder: FolderInfo) -> FolderCounts:
    """What STATUS and SELECT report, counted in the database (no row per message)."""
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
        if folder.key == DECISION:
            query = query.join(Mail, Mail.seq == ImapUid.mail_seq).where(
                Mail.permission_state == "open"
            )
        return query

    totals = counted(
        func.count(ImapUid.uid),
        func.count(case((unread, 1))),
        func.min(case((unread, ImapUid.uid))),
    )

    def run(session: Session) -> FolderCounts:
        next_uid = session.scalar(select(ImapFolder.next_uid).where(ImapFolder.id == folder.id))
        if folder.key == DRAFTS:  # drafts are always seen
            return FolderCounts(draft_count(session, owner), 0, None, int(next_uid or 1))
        exists, unseen, first_uid = session.execute(totals).one()
        position = None
        if first_uid is not None:
            before = counted(func.count(ImapUid.uid)).where(ImapUid.uid <= first_uid)
            position = session.scalar(before)
        return FolderCounts(int(exists), int(unseen), position, int(next_uid or 1))

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

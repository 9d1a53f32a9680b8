"""What is in one of a human's IMAP folders: its messages with UIDs and flags, read whole
at SELECT and afterwards only what changed since a mod-sequence.

`\\Seen` is the recipient's delivery `is_read` (the read state shared with REST and
the web UI); a mail the human only sent (no delivery of their own) is always seen.
`\\Flagged`, `\\Answered`, `\\Deleted`, `\\Draft` and keywords are the delivery's too
(core/mailboxes/keywords.py), so every session sees the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Select, and_, bindparam, case, false, func, or_, select, true
from sqlalchemy.orm import Session
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from core.mailboxes.drafts import draft_rows, draft_seq
from core.mailboxes.folders import FolderInfo
from core.mailboxes.keywords import all_keywords_of, keywords_in_use, keywords_of
from core.mailboxes.uids import DRAFTS
from core.store.engine import Store
from core.store.models import Delivery, ImapExpunged, ImapFolder, ImapUid, Mail
from core.store.prepared import Prepared

__all__ = [
    "FolderChanges",
    "FolderMessage",
    "FolderState",
    "created_dates",
    "folder_changes",
    "folder_message",
    "folder_state",
    "read_changes",
]


class FolderMessage(NamedTuple):
    """A tuple, not a frozen dataclass: SELECT makes one per message (100,000 at times).

    No date: IMAP's INTERNALDATE is needed by few commands, which ask
    `created_dates` for the messages they touch."""

    uid: int
    mail_seq: int
    seen: bool
    flagged: bool = False
    answered: bool = False
    deleted: bool = False  # IMAP's \\Deleted, not Trash
    draft: bool = False
    keywords: tuple[str, ...] = ()
    modseq: int = 0  # the folder's mod-sequence of the message's last change (RFC 7162 §3.1)


@dataclass(frozen=True, slots=True)
class FolderState:
    folder: FolderInfo
    next_uid: int
    highest_modseq: int
    messages: list[FolderMessage]  # ascending UID
    keywords: tuple[str, ...] = ()  # the owner's keywords in use (IMAP FLAGS)
    recent_uid: int = 0  # the UIDs above it are claimed by no session (core/mailboxes/recent.py)


@dataclass(frozen=True, slots=True)
class FolderChanges:
    """What changed in a folder after a mod-sequence: messages that entered or whose
    flags changed (ascending UID), and the UIDs of those that left."""

    next_uid: int
    highest_modseq: int
    changed: list[FolderMessage]
    expunged: list[int]
    # The expunge records since the mod-sequence were pruned (core/mailboxes/expunged.py):
    # `changed` is then every message of the folder, and the caller compares.
    whole: bool = False
    # The folder itself is gone (a person's own folder, deleted: core/mailboxes/personal.py).
    gone: bool = False
    recent_uid: int = 0  # as `FolderState.recent_uid`, read with the counters


def _messages_query(owner: str, folder_id: int) -> Select[Any]:
    seen = case((Delivery.id.is_(None), true()), else_=Delivery.is_read)
    return (
        select(
            ImapUid.uid,
            ImapUid.mail_seq,
            seen.label("seen"),
            func.coalesce(Delivery.flagged, false()),
            func.coalesce(Delivery.answered, false()),
            func.coalesce(Delivery.marked_deleted, false()),
            func.coalesce(Delivery.draft, false()),
            ImapUid.modseq,
        )
        .outerjoin(
            Delivery, and_(Delivery.mail_seq == ImapUid.mail_seq, Delivery.recipient == owner)
        )
        .where(ImapUid.folder_id == folder_id)
        .order_by(ImapUid.uid)
    )


def _folder_messages(session: Session, owner: str, query: Select[Any]) -> list[FolderMessage]:
    rows = list(session.execute(query))
    keywords = keywords_of(session, owner, [int(row[1]) for row in rows])
    return [_message(row, keywords) for row in rows]


def _message(row: Any, keywords: dict[int, list[str]]) -> FolderMessage:
    uid, seq, seen, flagged, answered, deleted, draft, modseq = row
    return FolderMessage(
        uid,
        seq,
        bool(seen),
        bool(flagged),
        bool(answered),
        bool(deleted),
        bool(draft),
        tuple(keywords.get(int(seq), ())),
        int(modseq),
    )


def _plain_rows(session: Session, statement: ClauseElement) -> list[tuple[Any, ...]]:
    """The rows as the database driver gives them, for a statement of plain integer
    columns: a folder may hold 100,000, and SQLAlchemy's Row objects cost more than the
    values they carry."""
    compiled = statement.compile(dialect=session.get_bind().dialect)
    assert isinstance(compiled, SQLCompiler)
    params = compiled.construct_params()
    positional = tuple(params[name] for name in compiled.positiontup or ())
    cursor = session.connection().connection.cursor()
    try:
        cursor.execute(str(compiled), positional)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _counters(session: Session, folder_id: int) -> tuple[int, int, int]:
    """(next_uid, highest_modseq, recent_uid), read in the same snapshot as the rows
    they describe."""
    row = session.execute(
        select(ImapFolder.next_uid, ImapFolder.highest_modseq, ImapFolder.recent_uid).where(
            ImapFolder.id == folder_id
        )
    ).first()
    return (1, 0, 0) if row is None else (int(row[0]), int(row[1]), int(row[2]))


async def folder_state(store: Store, owner: str, folder: FolderInfo) -> FolderState:
    """Every message of the folder with its UID and flags, in one snapshot (SELECT).

    Plain index scans instead of a join per message: the folder's (UID, mail)
    pairs, the owner's unread mails (ix_deliveries_inbox), usually few, and the
    owner's flagged or answered ones. A mail without a delivery of the owner's
    (one they sent) is seen and keeps no flags.
    """
    if folder.key == DRAFTS:
        return await _drafts_state(store, owner, folder)
    members = (
        select(ImapUid.uid, ImapUid.mail_seq, ImapUid.modseq)
        .where(ImapUid.folder_id == folder.id)
        .order_by(ImapUid.uid)
    )
    unread = select(Delivery.mail_seq).where(
        Delivery.recipient == owner,
        Delivery.archived.in_([False, True]),  # the index's second column, so it is used
        Delivery.is_read == false(),
    )

    marked = select(
        Delivery.mail_seq,
        Delivery.flagged,
        Delivery.answered,
        Delivery.marked_deleted,
        Delivery.draft,
    ).where(
        Delivery.recipient == owner,
        or_(
            Delivery.flagged == true(),
            Delivery.answered == true(),
            Delivery.marked_deleted == true(),
            Delivery.draft == true(),
        ),
    )

    def run(session: Session) -> FolderState:
        next_uid, modseq, recent_uid = _counters(session, folder.id)
        unseen = set(session.scalars(unread))
        flags = {
            int(seq): (bool(f), bool(a), bool(d), bool(r))
            for seq, f, a, d, r in session.execute(marked)
        }
        keywords = {seq: tuple(words) for seq, words in all_keywords_of(session, owner).items()}
        plain = (False, False, False, False)
        messages = [
            FolderMessage(
                uid, seq, seq not in unseen, *flags.get(seq, plain), keywords.get(seq, ()), modseq
            )
            for uid, seq, modseq in _plain_rows(session, members)
        ]
        in_use = tuple(keywords_in_use(session, owner))
        return FolderState(folder, next_uid, modseq, messages, in_use, recent_uid)

    return await store.read(run)


async def _drafts_state(store: Store, owner: str, folder: FolderInfo) -> FolderState:
    """Drafts are not mails: the folder is the owner's drafts (core/mailboxes/drafts.py),
    read whole each time (it is small), always seen."""

    def run(session: Session) -> FolderState:
        next_uid, modseq, recent_uid = _counters(session, folder.id)
        messages = [
            FolderMessage(uid, draft_seq(uid), True) for uid, _ in draft_rows(session, owner)
        ]
        return FolderState(folder, next_uid, modseq, messages, recent_uid=recent_uid)

    return await store.read(run)


# Built once: every IMAP command runs these, and building a statement costs more
# than running it when nothing changed.
_COUNTERS = Prepared(
    select(
        ImapFolder.next_uid,
        ImapFolder.highest_modseq,
        ImapFolder.vanished_horizon,
        ImapFolder.recent_uid,
    ).where(ImapFolder.id == bindparam("folder_id"))
)
_CHANGED = Prepared(
    select(
        ImapUid.uid,
        ImapUid.mail_seq,
        case((Delivery.id.is_(None), true()), else_=Delivery.is_read),
        func.coalesce(Delivery.flagged, false()),
        func.coalesce(Delivery.answered, false()),
        func.coalesce(Delivery.marked_deleted, false()),
        func.coalesce(Delivery.draft, false()),
        ImapUid.modseq,
    )
    .outerjoin(
        Delivery,
        and_(Delivery.mail_seq == ImapUid.mail_seq, Delivery.recipient == bindparam("owner")),
    )
    .where(ImapUid.folder_id == bindparam("folder_id"), ImapUid.modseq > bindparam("since"))
    .order_by(ImapUid.uid)
)
_EXPUNGED = Prepared(
    select(ImapExpunged.uid)
    .where(
        ImapExpunged.folder_id == bindparam("folder_id"),
        ImapExpunged.modseq > bindparam("since"),
    )
    .order_by(ImapExpunged.uid)
)


async def folder_changes(
    store: Store, owner: str, folder: FolderInfo, since_modseq: int
) -> FolderChanges:
    """What changed after `since_modseq` (RFC 7162 §3.1.4's CHANGEDSINCE, for the
    session itself): one small query when nothing did; else the changed rows and
    the expunge records, found by index, whatever the size of the folder."""
    return await store.read(lambda session: read_changes(session, owner, folder, since_modseq))


def read_changes(
    session: Session, owner: str, folder: FolderInfo, since_modseq: int
) -> FolderChanges:
    """`folder_changes` inside a read the caller runs (so one read can do more)."""
    connection = session.connection()
    params = {"owner": owner, "folder_id": folder.id, "since": since_modseq}
    row = _COUNTERS.first(connection, {"folder_id": folder.id})
    if row is None:
        return FolderChanges(1, since_modseq, [], [], gone=True)
    next_uid, modseq, horizon, recent_uid = (int(v) for v in row)
    if modseq == since_modseq:
        return FolderChanges(next_uid, modseq, [], [], recent_uid=recent_uid)
    whole = since_modseq < horizon  # what left since was pruned: read the folder whole
    if whole:
        params["since"] = -1
    gone = [] if whole else [int(r[0]) for r in _EXPUNGED.run(connection, params)]
    rows = _CHANGED.run(connection, params)
    keywords = keywords_of(session, owner, [int(row[1]) for row in rows])
    changed = [_message(row, keywords) for row in rows]
    return FolderChanges(next_uid, modseq, changed, gone, whole, recent_uid=recent_uid)


async def folder_message(
    store: Store, owner: str, folder: FolderInfo, uid: int
) -> FolderMessage | None:
    """One message of the folder by its UID, if it is still there."""
    query = _messages_query(owner, folder.id).where(ImapUid.uid == uid)
    found = await store.read(lambda session: _folder_messages(session, owner, query))
    return found[0] if found else None


_DATES_CHUNK = 10_000  # bound parameters per statement (SQLite allows 32,766)
_DATES = Prepared(
    select(Mail.seq, Mail.created_at).where(Mail.seq.in_(bindparam("seqs", expanding=True)))
)


async def created_dates(store: Store, mail_seqs: Sequence[int]) -> dict[int, datetime]:
    """When each mail was stored (IMAP's INTERNALDATE), in statements of 10,000 mails."""
    seqs = list(dict.fromkeys(mail_seqs))

    def run(session: Session) -> dict[int, datetime]:
        found: dict[int, datetime] = {}
        connection = session.connection()
        for start in range(0, len(seqs), _DATES_CHUNK):
            chunk = seqs[start : start + _DATES_CHUNK]
            found.update((int(seq), at) for seq, at in _DATES.run(connection, {"seqs": chunk}))
        return found

    return await store.read(run) if seqs else {}

"""IMAP UIDs: filing a mail into a human's IMAP folders, in the transaction that stores it.

RFC 3501 §2.3.1.1: in each mailbox UIDs strictly ascend and are never reused.
Each folder (`imap_folders`, one row per human and folder) has its own counter;
putting a mail into a folder advances it with `UPDATE … RETURNING`, which holds
that row's lock until commit. So a later UID can never commit before an earlier
one in the same folder (a client that saw UID n never later finds a new UID
below n), and folders of different humans never wait for each other.

Only humans have folders: agents read mail over REST, never IMAP.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.models import ImapFolder, ImapUid, table_of
from core.store import wake_after_commit

INBOX = "inbox"
SENT = "sent"
DRAFTS = "drafts"
ARCHIVE = "archive"
TRASH = "trash"
DECISION = "decision"
FIXED_FOLDERS = (INBOX, SENT, DRAFTS, ARCHIVE, TRASH, DECISION)
SESSION_PREFIX = "session:"

Placement = tuple[str, str]  # (owner, folder key)


def session_folder(conversation_id: str) -> str:
    return SESSION_PREFIX + conversation_id


def new_mail_placements(
    conversation_id: str,
    human_sender: str | None,
    human_recipients: Iterable[str],
    *,
    needs_decision: bool,
) -> list[Placement]:
    """Where a new mail goes: the sender's Sent, each recipient's INBOX (and Needs
    decision for a permission request), and everyone's folder of the conversation."""
    conversation = session_folder(conversation_id)
    placements: list[Placement] = []
    if human_sender is not None:
        placements += [(human_sender, SENT), (human_sender, conversation)]
    for name in human_recipients:
        placements += [(name, INBOX), (name, conversation)]
        if needs_decision:
            placements.append((name, DECISION))
    return placements


def file_mail(session: Session, mail_seq: int, placements: Iterable[Placement]) -> None:
    """Give the mail the next UID of each folder (created when missing)."""
    file_mails(session, [(mail_seq, placements)])


def file_mails(session: Session, filings: Sequence[tuple[int, Iterable[Placement]]]) -> None:
    """File several mails at once (an import batch): each folder's counter advances
    once, by as many UIDs as mails go into it, given in the order of `filings`.

    Folders are locked in one global order (owner, key), so two transactions that
    file into the same folders can never deadlock on PostgreSQL.
    """
    into: dict[Placement, list[int]] = {}
    for mail_seq, placements in filings:
        for placement in set(placements):
            into.setdefault(placement, []).append(mail_seq)
    if not into:
        return
    wake_after_commit(session, {owner for owner, _ in into})  # IMAP IDLE sees it at once
    rows = []
    for (owner, key), seqs in sorted(into.items()):
        folder_id, first = _take_uids(session, owner, key, len(seqs))
        rows += [
            {"folder_id": folder_id, "uid": first + offset, "mail_seq": seq}
            for offset, seq in enumerate(seqs)
        ]
    session.connection().execute(insert(table_of(ImapUid)), rows)  # one statement for all


def refile_mail(session: Session, mail_seq: int, owner: str, source: str, target: str) -> None:
    """Move between folders (INBOX → Archive): a new, highest UID in the target."""
    refile_mails(session, [mail_seq], owner, source, target)


def refile_mails(
    session: Session, mail_seqs: Sequence[int], owner: str, source: str, target: str
) -> list[int]:
    """Move mails between two folders of `owner`, in the given order; their new UIDs.

    One block of UIDs is taken for all of them (one counter update), so a MOVE of
    a thousand messages costs a few statements, not a thousand.
    """
    if not mail_seqs:
        return []
    wake_after_commit(session, [owner])
    folders = table_of(ImapFolder)
    source_id = (
        select(folders.c.id).where(folders.c.owner == owner, folders.c.key == source)
    ).scalar_subquery()
    session.execute(
        delete(ImapUid).where(ImapUid.folder_id == source_id, ImapUid.mail_seq.in_(mail_seqs))
    )
    folder_id, first = _take_uids(session, owner, target, len(mail_seqs))
    uids = list(range(first, first + len(mail_seqs)))
    session.connection().execute(
        insert(table_of(ImapUid)),
        [
            {"folder_id": folder_id, "uid": uid, "mail_seq": seq}
            for uid, seq in zip(uids, mail_seqs, strict=True)
        ],
    )
    return uids


def take_uids(session: Session, owner: str, key: str, count: int) -> int:
    """The first of `count` new UIDs of a folder whose messages are not mails (Drafts)."""
    wake_after_commit(session, [owner])
    return _take_uids(session, owner, key, count)[1]


def _take_uids(session: Session, owner: str, key: str, count: int) -> tuple[int, int]:
    """(folder id, the first of `count` UIDs taken); the folder row stays locked until commit."""
    taken = _advance(session, owner, key, count)
    if taken is None:
        _create_folder(session, owner, key)
        taken = _advance(session, owner, key, count)
        assert taken is not None
    return taken


def _advance(session: Session, owner: str, key: str, count: int) -> tuple[int, int] | None:
    folders = table_of(ImapFolder)
    row = session.execute(
        update(folders)
        .where(folders.c.owner == owner, folders.c.key == key)
        .values(next_uid=folders.c.next_uid + count)
        .returning(folders.c.id, folders.c.next_uid)
    ).first()
    return None if row is None else (int(row[0]), int(row[1]) - count)


def _create_folder(session: Session, owner: str, key: str) -> None:
    create_folders(session, owner, [key])


def create_folders(session: Session, owner: str, keys: Iterable[str]) -> None:
    """Insert the folders unless they exist (a concurrent transaction's win is kept)."""
    validity = uid_validity_now()
    values = [{"owner": owner, "key": k, "uid_validity": validity, "next_uid": 1} for k in keys]
    dialect = session.get_bind().dialect.name
    builder = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(
        builder(table_of(ImapFolder))
        .values(values)
        .on_conflict_do_nothing(index_elements=["owner", "key"])
    )


def uid_validity_now() -> int:
    """UIDVALIDITY of a new folder: the time, so a re-created store never repeats
    a value a client cached (RFC 3501 §2.3.1.1 asks for a new value on renumbering)."""
    return int(time.time()) & 0xFFFFFFFF or 1

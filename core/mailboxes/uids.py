"""Filing a mail into a human's folders, numbered, in the transaction that stores it.

A UID is the store's number for a mail in one folder, the numbering IMAP serves
as is (RFC 3501 §2.3.1.1: in each mailbox UIDs strictly ascend and are never reused).
Each folder (`imap_folders`, one row per human and folder) has its own counter;
putting a mail into a folder advances it with `UPDATE … RETURNING`, which holds
that row's lock until commit. So a later UID can never commit before an earlier
one in the same folder (a client that saw UID n never later finds a new UID
below n), and folders of different humans never wait for each other.

Change tracking (RFC 7162 §3.1 mod-sequences): under the same lock each folder's
`highest_modseq` advances once per transaction that changes it — a mail filed
(`file_mails`), taken out (`unfile_mails`, leaving an `imap_expunged` record) or its
flags changed (`touch`) — and the message rows changed take that value. A session
that knows the folder at mod-sequence m reads only the rows and records above m.
Whoever changes a flag IMAP shows calls `touch(session, owner, mail_seqs)` in the
same transaction. Only humans have folders: agents read mail over REST, never IMAP.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from core.store.engine import wake_after_commit
from core.store.models import ImapExpunged, ImapFolder, ImapUid, table_of
from core.store.port import backend_of
from core.store.prepared import Prepared

INBOX = "inbox"
SENT = "sent"
DRAFTS = "drafts"
ARCHIVE = "archive"
TRASH = "trash"
DECISION = "decision"
FIXED_FOLDERS = (INBOX, SENT, DRAFTS, ARCHIVE, TRASH, DECISION)
CONVERSATION_PREFIX = "session:"  # stored in imap_folders.key: the API calls them sessions

Placement = tuple[str, str]  # (owner, folder key)


def conversation_folder(conversation_id: str) -> str:
    return CONVERSATION_PREFIX + conversation_id


def new_mail_placements(
    conversation_id: str,
    human_sender: str | None,
    human_recipients: Iterable[str],
    *,
    needs_decision: bool,
) -> list[Placement]:
    """Where a new mail goes: the sender's Sent, each recipient's INBOX (and Needs
    decision for a permission request), and everyone's folder of the conversation."""
    conversation = conversation_folder(conversation_id)
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
    counts = {placement: len(seqs) for placement, seqs in into.items()}
    if backend_of(session).serial_writes:
        taken = _take_by_owner(session, counts)
    else:
        taken = {p: _take_uids(session, *p, count) for p, count in sorted(counts.items())}
    rows = [
        {
            "folder_id": taken[placement].folder_id,
            "uid": taken[placement].first_uid + i,
            "mail_seq": seq,
            "modseq": taken[placement].modseq,
        }
        for placement, seqs in sorted(into.items())
        for i, seq in enumerate(seqs)
    ]
    _INSERT_UIDS.run(session.connection(), rows)  # one statement for all


def _take_by_owner(session: Session, counts: dict[Placement, int]) -> dict[Placement, Taken]:
    """SQLite: the folders of one owner that take as many UIDs each, advanced by one
    UPDATE (a new mail: the sender's Sent and conversation folder, or a recipient's
    INBOX and conversation folder). SQLite has one writer, so the order in which the
    rows are locked cannot deadlock; PostgreSQL takes them one by one, in order."""
    groups: dict[tuple[str, int], list[str]] = {}
    for (owner, key), count in counts.items():
        groups.setdefault((owner, count), []).append(key)
    taken: dict[Placement, Taken] = {}
    for (owner, count), keys in sorted(groups.items()):
        if len(keys) == 1:
            taken[(owner, keys[0])] = _take_uids(session, owner, keys[0], count)
            continue
        params = {"b_owner": owner, "b_count": count} | {f"b_key{i}": k for i, k in enumerate(keys)}
        for key, folder_id, next_uid, modseq in _advance_many(len(keys)).run(
            session.connection(), params
        ):
            taken[(owner, key)] = Taken(int(folder_id), int(next_uid) - count, int(modseq))
        for key in sorted(k for k in keys if (owner, k) not in taken):  # created at first use
            taken[(owner, key)] = _take_uids(session, owner, key, count)
    return taken


def refile_mail(session: Session, mail_seq: int, owner: str, source: str, target: str) -> None:
    """Move between folders (INBOX → Archive): a new, highest UID in the target."""
    refile_mails(session, [mail_seq], owner, source, target)


def refile_mails(
    session: Session, mail_seqs: Sequence[int], owner: str, source: str, target: str
) -> list[int]:
    """Move mails between two folders of `owner`, in the given order; their new UIDs.

    One block of UIDs is taken for all of them (one counter update), so a MOVE of
    a thousand messages costs a few statements, not a thousand. The two folders
    are locked in the global (owner, key) order, as everywhere.
    """
    if not mail_seqs:
        return []
    wake_after_commit(session, [owner])
    taken: Taken | None = None
    for key in sorted({source, target}):
        if key == source:
            unfile_mails(session, owner, source, mail_seqs)
        else:
            taken = _take_uids(session, owner, target, len(mail_seqs))
    assert taken is not None
    return list(_file_taken(session, taken, mail_seqs).values())


def renumber_mails(
    session: Session, mail_seqs: Sequence[int], owner: str, key: str
) -> dict[int, int]:
    """A MOVE into the folder the mails are in (RFC 6851 allows it; Dovecot does it):
    each that is there leaves under its UID and comes back under a new, highest one,
    in the given order. Returns {mail seq: new UID}."""
    folders, uids = table_of(ImapFolder), table_of(ImapUid)
    present = set(
        session.scalars(
            select(uids.c.mail_seq)
            .join(folders, folders.c.id == uids.c.folder_id)
            .where(folders.c.owner == owner, folders.c.key == key)
            .where(uids.c.mail_seq.in_(list(mail_seqs)))
        )
    )
    kept = [seq for seq in dict.fromkeys(mail_seqs) if seq in present]
    if not kept:
        return {}
    unfile_mails(session, owner, key, kept)
    return _file_taken(session, _take_uids(session, owner, key, len(kept)), kept)


def _file_taken(session: Session, taken: Taken, mail_seqs: Sequence[int]) -> dict[int, int]:
    """The mails under the block of UIDs taken for them, in order: {mail seq: UID}."""
    new = {seq: taken.first_uid + at for at, seq in enumerate(mail_seqs)}
    _INSERT_UIDS.run(
        session.connection(),
        [
            {"folder_id": taken.folder_id, "uid": uid, "mail_seq": seq, "modseq": taken.modseq}
            for seq, uid in new.items()
        ],
    )
    return new


def unfile_mails(session: Session, owner: str, key: str, mail_seqs: Sequence[int]) -> list[int]:
    """Take mails out of one folder of `owner`; the UIDs they had there.

    Each leaves a record at the folder's next mod-sequence (`imap_expunged`), so
    sessions that selected the folder expunge it without re-reading the folder.
    """
    if not mail_seqs:
        return []
    folders, uids = table_of(ImapFolder), table_of(ImapUid)
    bumped = session.execute(
        update(folders)
        .where(folders.c.owner == owner, folders.c.key == key)
        .values(highest_modseq=folders.c.highest_modseq + 1)
        .returning(folders.c.id, folders.c.highest_modseq)
    ).first()
    if bumped is None:
        return []
    folder_id, modseq = int(bumped[0]), int(bumped[1])
    gone = [
        int(uid)
        for uid in session.scalars(
            delete(uids)
            .where(uids.c.folder_id == folder_id, uids.c.mail_seq.in_(list(mail_seqs)))
            .returning(uids.c.uid)
        )
    ]
    if gone:
        wake_after_commit(session, [owner])
        session.connection().execute(
            insert(table_of(ImapExpunged)),
            [{"folder_id": folder_id, "uid": uid, "modseq": modseq} for uid in gone],
        )
    return gone


def unfile_everywhere(session: Session, key: str, mail_seq: int) -> None:
    """Take a mail out of that folder of every human holding it (a decided request
    leaves "Needs decision"), each owner's folder locked in the global order."""
    folders, uids = table_of(ImapFolder), table_of(ImapUid)
    owners = session.scalars(
        select(folders.c.owner)
        .join(uids, uids.c.folder_id == folders.c.id)
        .where(folders.c.key == key, uids.c.mail_seq == mail_seq)
        .order_by(folders.c.owner)
    )
    for owner in list(owners):
        unfile_mails(session, owner, key, [mail_seq])


def touch(session: Session, owner: str, mail_seqs: Sequence[int]) -> None:
    """Record that these mails' flags changed for `owner` (call it in the transaction
    that changes them): every folder of `owner` holding one advances its
    mod-sequence once, and the mails' rows there take it, so the human's IMAP
    sessions see the change with their next command and IDLE is woken.

    Three statements whatever the number of mails and folders. A mail in none of
    the owner's folders (an agent's, or no longer filed) is left alone.
    """
    if not mail_seqs:
        return
    connection = session.connection()
    params = {"owner": owner, "seqs": list(mail_seqs)}
    ids = [int(row[0]) for row in _HOLDING.run(connection, params)]
    if not ids:
        return
    wake_after_commit(session, [owner])
    _TOUCH_FOLDERS.run(connection, {"ids": ids})
    _TOUCH_UIDS.run(connection, {"ids": ids, "seqs": params["seqs"]})


# `touch`'s statements, built once (a STORE runs them in the writer thread). The
# folders are locked in the global (owner, key) order before they are advanced
# (see file_mails).
_FOLDERS, _UIDS = table_of(ImapFolder), table_of(ImapUid)
_HOLDING = Prepared(
    select(_FOLDERS.c.id)
    .where(
        _FOLDERS.c.id.in_(
            select(_UIDS.c.folder_id)
            .join(_FOLDERS, _FOLDERS.c.id == _UIDS.c.folder_id)
            .where(
                _FOLDERS.c.owner == bindparam("owner"),
                _UIDS.c.mail_seq.in_(bindparam("seqs", expanding=True)),
            )
        )
    )
    .order_by(_FOLDERS.c.key)
    .with_for_update()
)
_TOUCH_FOLDERS = Prepared(
    update(_FOLDERS)
    .where(_FOLDERS.c.id.in_(bindparam("ids", expanding=True)))
    .values(highest_modseq=_FOLDERS.c.highest_modseq + 1)
)
_TOUCH_UIDS = Prepared(
    update(_UIDS)
    .where(
        _UIDS.c.folder_id.in_(bindparam("ids", expanding=True)),
        _UIDS.c.mail_seq.in_(bindparam("seqs", expanding=True)),
    )
    .values(
        modseq=select(_FOLDERS.c.highest_modseq)
        .where(_FOLDERS.c.id == _UIDS.c.folder_id)
        .scalar_subquery()
    )
)


@dataclass(frozen=True, slots=True)
class Taken:
    """A block of UIDs taken in a folder, and the folder's mod-sequence of the change."""

    folder_id: int
    first_uid: int
    modseq: int


def take_uids(session: Session, owner: str, key: str, count: int) -> int:
    """The first of `count` new UIDs of a folder whose messages are not mails (Drafts).

    Drafts are not tracked by mod-sequence (their folder is re-read whole, it is
    small); the wake-up tells selected sessions to look."""
    wake_after_commit(session, [owner])
    return _take_uids(session, owner, key, count).first_uid


def _take_uids(session: Session, owner: str, key: str, count: int) -> Taken:
    """`count` UIDs of the folder (created when missing); its row stays locked until commit."""
    taken = _advance(session, owner, key, count)
    if taken is None:
        _create_folder(session, owner, key)
        taken = _advance(session, owner, key, count)
        assert taken is not None
    return taken


def _advance(session: Session, owner: str, key: str, count: int) -> Taken | None:
    params = {"b_owner": owner, "b_key": key, "b_count": count}
    row = _ADVANCE.first(session.connection(), params)
    return None if row is None else Taken(int(row[0]), int(row[1]) - count, int(row[2]))


# Built once with bound parameters: every mail a human sends or receives runs it
# two or three times, and building the statement cost more than running it.
_ADVANCE = Prepared(
    update(_FOLDERS)
    .where(_FOLDERS.c.owner == bindparam("b_owner"), _FOLDERS.c.key == bindparam("b_key"))
    .values(
        next_uid=_FOLDERS.c.next_uid + bindparam("b_count"),
        highest_modseq=_FOLDERS.c.highest_modseq + 1,
    )
    .returning(_FOLDERS.c.id, _FOLDERS.c.next_uid, _FOLDERS.c.highest_modseq)
)
_INSERT_UIDS = Prepared(insert(table_of(ImapUid)))


@cache
def _advance_many(keys: int) -> Prepared:
    """`_ADVANCE` of `keys` folders of one owner (SQLite; bound one by one, so the
    statement of each number of keys is built once)."""
    return Prepared(
        update(_FOLDERS)
        .where(
            _FOLDERS.c.owner == bindparam("b_owner"),
            _FOLDERS.c.key.in_([bindparam(f"b_key{i}") for i in range(keys)]),
        )
        .values(
            next_uid=_FOLDERS.c.next_uid + bindparam("b_count"),
            highest_modseq=_FOLDERS.c.highest_modseq + 1,
        )
        .returning(_FOLDERS.c.key, _FOLDERS.c.id, _FOLDERS.c.next_uid, _FOLDERS.c.highest_modseq)
    )


def _create_folder(session: Session, owner: str, key: str) -> None:
    create_folders(session, owner, [key])


def create_folders(session: Session, owner: str, keys: Iterable[str]) -> None:
    """Insert the folders unless they exist (a concurrent transaction's win is kept).

    In key order, the global order of folder rows: a first IMAP login creating all
    of them and a first mail creating two must not take them in opposite orders
    (a PostgreSQL deadlock; tests/integration/test_folder_lock_order.py)."""
    validity = uid_validity_now()
    values = [
        {"owner": owner, "key": k, "uid_validity": validity, "next_uid": 1, "highest_modseq": 0}
        for k in sorted(set(keys))
    ]
    session.execute(backend_of(session).insert_or_skip(table_of(ImapFolder)).values(values))


def uid_validity_now() -> int:
    """UIDVALIDITY of a new folder: the time, so a re-created store never repeats
    a value a client cached (RFC 3501 §2.3.1.1 asks for a new value on renumbering),
    and above every value this process gave before: a folder deleted and created
    again within a second (CREATE after DELETE) must not get its old value back."""
    global _last_validity
    with _validity_lock:  # writes run in worker threads
        _last_validity = max(int(time.time()) & 0xFFFFFFFF or 1, _last_validity + 1)
        return _last_validity


_last_validity = 0
_validity_lock = threading.Lock()

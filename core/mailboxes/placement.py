"""Where a recipient keeps a mail: INBOX, Archive, Trash or a folder of their own, and
the flags they gave it.

A delivery's `archived`, `folder` and `deleted` say which folder holds it: Trash when
deleted; else, archived, the personal folder `folder` names (core/mailboxes/personal.py)
or Archive; else INBOX. A deleted mail remembers where it was, so restoring puts it
back there. The web UI, REST and IMAP change them through
`change_placement` only, so an archive button, a `MOVE` to Archive and an
`EXPUNGE` into Trash are the same state change. Nothing is destroyed: a mail
leaves Trash only by being restored, or is hidden from IMAP (`hide_in_trash`).

The mail keeps its conversation's folder whatever happens (ARCHITECTURE.md:
"it leaves INBOX, not its conversation folder").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.orm import Session

from core.mailboxes.keywords import Keeping, KeywordLimits, change_keywords
from core.mailboxes.personal import is_personal
from core.mailboxes.uids import ARCHIVE, INBOX, SENT, TRASH, refile_mails, touch, unfile_mails
from core.store.models import Delivery, table_of
from core.store.prepared import Prepared

__all__ = [
    "FILED_IN_SENT",
    "FLAG_COLUMNS",
    "KEEP",
    "Placement",
    "change_placement",
    "folder_of",
    "hide_in_trash",
    "placement_in",
    "set_flags",
    "unmark",
]

# IMAP flags kept per recipient, by the delivery column that keeps each.
FLAG_COLUMNS = {
    "seen": Delivery.is_read,
    "flagged": Delivery.flagged,
    "answered": Delivery.answered,
    "deleted": Delivery.marked_deleted,  # IMAP's \\Deleted: marked for EXPUNGE, not Trash
    "draft": Delivery.draft,
}


# `change_placement(folder=KEEP)`: the personal folder stays what it was.
KEEP: Final = "\x00keep"


@dataclass(frozen=True, slots=True)
class Placement:
    """What putting a mail into a folder sets of its delivery: None (and `KEEP` for
    the folder) leaves that part as it was, so a mail put in Trash remembers where
    it came from."""

    archived: bool | None = None
    deleted: bool | None = None
    folder: str | None = KEEP

    def of_new(self) -> tuple[bool, bool, str | None]:
        """(archived, deleted, folder) of a delivery made in that folder."""
        return bool(self.archived), bool(self.deleted), None if self.folder == KEEP else self.folder


_PUT_IN: Final = {
    INBOX: Placement(archived=False, deleted=False),
    ARCHIVE: Placement(archived=True, deleted=False),
    TRASH: Placement(deleted=True),
}
# A copy a mail client keeps in Sent (an APPEND there): the person's alone, filed.
FILED_IN_SENT: Final = Placement(archived=True, deleted=False, folder=SENT)


def placement_in(key: str) -> Placement | None:
    """The placement a mail takes in folder `key`: INBOX, Archive, Trash or a folder
    of the person's own; None for the folders mail is not put in."""
    if is_personal(key):
        return Placement(archived=True, deleted=False, folder=key)
    return _PUT_IN.get(key)


def folder_of(*, archived: bool, deleted: bool, folder: str | None = None) -> str:
    if deleted:
        return TRASH
    if archived:
        return folder or ARCHIVE
    return INBOX


def change_placement(
    session: Session,
    owner: str,
    mail_seqs: Sequence[int],
    *,
    archived: bool | None = None,
    deleted: bool | None = None,
    folder: str | None = KEEP,
    imap: bool = True,
) -> dict[int, int]:
    """Archive, un-archive, file, delete or restore `owner`'s deliveries of these mails.

    `folder` is the personal folder an archived mail is filed in (None: Archive
    itself); archiving or un-archiving without one takes the mail out of its folder,
    deleting and restoring keep it. Mails that already are in that state are left
    alone. With `imap` (the owner is a human), each mail that changes folder gets a
    new, highest UID in the folder it enters, in the order given, and loses its
    `\\Deleted` mark (it was for the folder it left). Returns {mail seq: that UID}.
    """
    if folder == KEEP and archived is not None:
        folder = None
    # Locked (PostgreSQL; SQLite has one writer): a concurrent change of the same
    # mails waits, then reads the state this one left, and files nothing twice.
    rows = session.execute(
        select(Delivery.mail_seq, Delivery.archived, Delivery.deleted, Delivery.folder)
        .where(Delivery.recipient == owner, Delivery.mail_seq.in_(list(mail_seqs)))
        .order_by(Delivery.mail_seq)
        .with_for_update()
    ).all()
    states = {row.mail_seq: (row.archived, row.deleted, row.folder) for row in rows}
    moves: dict[tuple[str, str], list[int]] = {}
    changed: list[int] = []
    for seq in dict.fromkeys(mail_seqs):
        if seq not in states:
            continue
        was = states[seq]
        now = (
            was[0] if archived is None else archived,
            was[1] if deleted is None else deleted,
            was[2] if folder == KEEP else folder,
        )
        if now == was:
            continue
        changed.append(seq)
        source = folder_of(archived=was[0], deleted=was[1], folder=was[2])
        target = folder_of(archived=now[0], deleted=now[1], folder=now[2])
        if source != target:
            moves.setdefault((source, target), []).append(seq)
    if not changed:
        return {}
    values: dict[str, bool | str | None] = {
        name: value
        for name, value in (("archived", archived), ("deleted", deleted))
        if value is not None
    }
    if folder != KEEP:
        values["folder"] = folder
    values["marked_deleted"] = False
    session.execute(
        update(Delivery)
        .where(Delivery.recipient == owner, Delivery.mail_seq.in_(changed))
        .values(**values)
    )
    new_uids: dict[int, int] = {}
    if imap:  # folders locked in key order, as core/mailboxes/uids.py does (no deadlock)
        for (source, target), seqs in sorted(moves.items(), key=lambda move: move[0][::-1]):
            uids = refile_mails(session, seqs, owner, source, target)
            new_uids.update(zip(seqs, uids, strict=True))
    return new_uids


def hide_in_trash(session: Session, owner: str, mail_seqs: Sequence[int]) -> int:
    """EXPUNGE in Trash: the mails leave IMAP's Trash but stay deleted (restorable
    in the web UI and over REST). Returns how many left."""
    unmark(session, owner, mail_seqs)
    return len(unfile_mails(session, owner, TRASH, mail_seqs))


def unmark(session: Session, owner: str, mail_seqs: Sequence[int]) -> None:
    """Clear `\\Deleted` once an EXPUNGE acted on it (the mail left the folder, or
    was in Trash already: a COPY to Trash came first)."""
    set_flags(session, owner, {("deleted", False): list(mail_seqs)})


def set_flags(
    session: Session,
    owner: str,
    changes: dict[tuple[str, bool], list[int]],
    *,
    added: Mapping[str, Sequence[int]] | None = None,
    removed: Mapping[str, Sequence[int]] | None = None,
    limits: KeywordLimits | None = None,
    keeping: Keeping | None = None,
) -> None:
    """Set (`True`) or clear flags of `owner`'s deliveries: {(flag, value): mail seqs},
    and add or remove keywords ({keyword: mail seqs}, or all but some: `keeping`,
    core/mailboxes/keywords.py).

    One statement per set of flag values that mails are given alike, whatever the
    number of mails (an IMAP STORE gives every message the same); a mail `owner`
    only sent has no delivery and so keeps no flags. One mod-sequence for the lot,
    so other IMAP sessions see flags and keywords change together.
    """
    changed: set[int] = set()
    if added or removed or keeping:
        changed |= change_keywords(
            session, owner, added or {}, removed or {}, limits or KeywordLimits(), keeping
        )
    given: dict[int, dict[str, bool]] = {}
    for (flag, value), seqs in sorted(changes.items()):
        for seq in seqs:
            given.setdefault(seq, {})[flag] = value
    alike: dict[tuple[tuple[str, bool], ...], list[int]] = {}
    for seq, values in given.items():
        alike.setdefault(tuple(sorted(values.items())), []).append(seq)
    connection = session.connection()
    for assigned, seqs in sorted(alike.items()):
        params = {"owner": owner, "seqs": seqs}
        changed.update(int(row[0]) for row in _flag_update(assigned).run(connection, params))
    touch(session, owner, sorted(changed))  # the owner's IMAP sessions see the new flags


_DELIVERIES = table_of(Delivery)


@cache
def _flag_update(values: tuple[tuple[str, bool], ...]) -> Prepared:
    """The UPDATE giving these flag values (sorted (flag, value) pairs: at most 3^5
    statements, each built once) to `owner`'s deliveries of mails `seqs`; the mails
    it changed (a mail that had them all already is not one)."""
    columns = [(_DELIVERIES.c[FLAG_COLUMNS[flag].key], value) for flag, value in values]
    return Prepared(
        update(_DELIVERIES)
        .where(
            _DELIVERIES.c.recipient == bindparam("owner"),
            _DELIVERIES.c.mail_seq.in_(bindparam("seqs", expanding=True)),
            or_(*(column != value for column, value in columns)),
        )
        .values({column.key: value for column, value in columns})
        .returning(_DELIVERIES.c.mail_seq)
    )

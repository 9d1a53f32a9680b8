"""Where a recipient keeps a mail: INBOX, Archive or Trash, and the flags they gave it.

A delivery's `archived` and `deleted` say which of the three folders holds it
(Trash wins: a deleted mail remembers whether it was archived, so restoring
puts it back where it was). The web UI, REST and IMAP change them through
`change_placement` only, so an archive button, a `MOVE` to Archive and an
`EXPUNGE` into Trash are the same state change. Nothing is destroyed: a mail
leaves Trash only by being restored, or is hidden from IMAP (`hide_in_trash`).

The mail keeps its conversation's folder whatever happens (ARCHITECTURE.md:
"it leaves INBOX, not its conversation folder").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.mailboxes.keywords import KeywordLimits, change_keywords
from core.mailboxes.uids import ARCHIVE, INBOX, TRASH, refile_mails, touch, unfile_mails
from core.store.models import Delivery

__all__ = [
    "FLAG_COLUMNS",
    "change_placement",
    "folder_of",
    "hide_in_trash",
    "set_flags",
    "unmark",
]

# IMAP flags kept per recipient, by the delivery column that keeps each.
FLAG_COLUMNS = {
    "seen": Delivery.is_read,
    "flagged": Delivery.flagged,
    "answered": Delivery.answered,
    "deleted": Delivery.marked_deleted,  # IMAP's \\Deleted: marked for EXPUNGE, not Trash
}


def folder_of(*, archived: bool, deleted: bool) -> str:
    return TRASH if deleted else ARCHIVE if archived else INBOX


def change_placement(
    session: Session,
    owner: str,
    mail_seqs: Sequence[int],
    *,
    archived: bool | None = None,
    deleted: bool | None = None,
    imap: bool = True,
) -> dict[int, int]:
    """Archive, un-archive, delete or restore `owner`'s deliveries of these mails.

    Mails that already are in that state are left alone. With `imap` (the owner
    is a human), each mail that changes folder gets a new, highest UID in the
    folder it enters, in the order given, and loses its `\\Deleted` mark (it was
    for the folder it left). Returns {mail seq: that UID}.
    """
    # Locked (PostgreSQL; SQLite has one writer): a concurrent change of the same
    # mails waits, then reads the state this one left, and files nothing twice.
    rows = session.execute(
        select(Delivery.mail_seq, Delivery.archived, Delivery.deleted)
        .where(Delivery.recipient == owner, Delivery.mail_seq.in_(list(mail_seqs)))
        .order_by(Delivery.mail_seq)
        .with_for_update()
    ).all()
    states = {row.mail_seq: (row.archived, row.deleted) for row in rows}
    moves: dict[tuple[str, str], list[int]] = {}
    changed: list[int] = []
    for seq in dict.fromkeys(mail_seqs):
        if seq not in states:
            continue
        was_archived, was_deleted = states[seq]
        now_archived = was_archived if archived is None else archived
        now_deleted = was_deleted if deleted is None else deleted
        if (now_archived, now_deleted) == (was_archived, was_deleted):
            continue
        changed.append(seq)
        source = folder_of(archived=was_archived, deleted=was_deleted)
        target = folder_of(archived=now_archived, deleted=now_deleted)
        if source != target:
            moves.setdefault((source, target), []).append(seq)
    if not changed:
        return {}
    values: dict[str, bool] = {
        name: value
        for name, value in (("archived", archived), ("deleted", deleted))
        if value is not None
    }
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
) -> None:
    """Set (`True`) or clear flags of `owner`'s deliveries: {(flag, value): mail seqs},
    and add or remove keywords ({keyword: mail seqs}, core/mailboxes/keywords.py).

    One statement per flag and value, whatever the number of mails; a mail
    `owner` only sent has no delivery and so keeps no flags. One mod-sequence
    for the lot, so other IMAP sessions see flags and keywords change together.
    """
    changed: set[int] = set()
    if added or removed:
        changed |= change_keywords(
            session, owner, added or {}, removed or {}, limits or KeywordLimits()
        )
    for (flag, value), seqs in sorted(changes.items()):
        if not seqs:
            continue
        column = FLAG_COLUMNS[flag]
        changed.update(
            session.scalars(
                update(Delivery)
                .where(Delivery.recipient == owner, Delivery.mail_seq.in_(seqs), column != value)
                .values({column.key: value})
                .returning(Delivery.mail_seq)
            )
        )
    touch(session, owner, sorted(changed))  # the owner's IMAP sessions see the new flags

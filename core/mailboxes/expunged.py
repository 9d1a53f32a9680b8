"""The UIDs that left a folder after a mod-sequence (QRESYNC's VANISHED), and pruning them.

Every message that leaves a folder leaves an `imap_expunged` record at the
folder's mod-sequence of its leaving (core/mailboxes/uids.py `unfile_mails`).
RFC 7162 §3.2.5 and §3.2.6 answer a client that knew the folder at mod-sequence
m with the UIDs expunged since: these records. They are kept for a retention
period (`AGENTMAIL_IMAP_EXPUNGE_RETENTION_DAYS`) and then pruned, and the folder
remembers how far (`vanished_horizon`): for a mod-sequence below it the records
are incomplete, `expunged_since` says so (None), and the caller answers from
what is still there instead (RFC 7162 §3.2.5.2 lets the server report UIDs the
client may never have seen).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import ImapExpunged, ImapFolder, utcnow

__all__ = ["expunged_since", "prune_expunged"]


def expunged_since(session: Session, folder_id: int, modseq: int) -> list[int] | None:
    """The UIDs that left the folder after the stored mod-sequence `modseq`, ascending;
    None if records of that time were pruned already."""
    horizon = session.scalar(select(ImapFolder.vanished_horizon).where(ImapFolder.id == folder_id))
    if horizon is not None and modseq < horizon:
        return None
    query = (
        select(ImapExpunged.uid)
        .where(ImapExpunged.folder_id == folder_id, ImapExpunged.modseq > modseq)
        .order_by(ImapExpunged.uid)
    )
    return [int(uid) for uid in session.scalars(query)]


async def prune_expunged(store: Store, retention: timedelta) -> int:
    """Delete expunge records older than the retention; each folder's horizon moves up
    to the newest mod-sequence pruned. How many records went.

    A folder's records grow in mod-sequence as in time, so the records at or below
    that mod-sequence all go (none younger is left below the horizon). The folder rows
    are locked in the global (owner, key) order every writer uses.
    """
    cutoff = utcnow() - retention
    old = or_(ImapExpunged.expunged_at < cutoff, ImapExpunged.expunged_at.is_(None))

    def run(session: Session) -> int:
        newest = (
            select(ImapExpunged.folder_id, func.max(ImapExpunged.modseq))
            .join(ImapFolder, ImapFolder.id == ImapExpunged.folder_id)
            .where(old)
            .group_by(ImapExpunged.folder_id, ImapFolder.owner, ImapFolder.key)
            .order_by(ImapFolder.owner, ImapFolder.key)
        )
        removed = 0
        for folder_id, modseq in list(session.execute(newest)):
            session.execute(
                update(ImapFolder)
                .where(ImapFolder.id == folder_id, ImapFolder.vanished_horizon < modseq)
                .values(vanished_horizon=modseq)
            )
            gone = session.execute(
                delete(ImapExpunged).where(
                    ImapExpunged.folder_id == folder_id, ImapExpunged.modseq <= modseq
                )
            )
            removed += int(gone.rowcount)  # type: ignore[attr-defined]
        return removed

    return await store.write(run)

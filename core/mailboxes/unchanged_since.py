"""Which mails changed in a folder after a mod-sequence, checked where the STORE writes.

RFC 7162 §3.1.3: `STORE (UNCHANGEDSINCE n)` changes a message only if its
mod-sequence is still n or less, and the test and the change must be one atomic
step, or a change by another session between them is lost. So the test runs in
the STORE's own write transaction, after locking the owner's folders that hold
the mails — the same locks, in the same global (key) order, that every flag
change takes (`core.mailboxes.uids.touch`) — so no other change to them can
commit between the test and the write.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from core.store.models import ImapFolder, ImapUid

__all__ = ["changed_after"]


def changed_after(
    session: Session, owner: str, folder_id: int, mail_seqs: Sequence[int], modseq: int
) -> set[int]:
    """The mails among `mail_seqs` whose row in the folder changed after `modseq`
    (stored mod-sequences); call it inside the write that changes the others."""
    if not mail_seqs:
        return set()
    seqs = list(mail_seqs)
    holding = select(ImapUid.folder_id).join(ImapFolder, ImapFolder.id == ImapUid.folder_id)
    holding = holding.where(ImapFolder.owner == owner, ImapUid.mail_seq.in_(seqs))
    session.execute(
        select(ImapFolder.id)
        .where(or_(ImapFolder.id == folder_id, ImapFolder.id.in_(holding)))
        .order_by(ImapFolder.key)
        .with_for_update()
    ).all()
    changed = select(ImapUid.mail_seq).where(
        ImapUid.folder_id == folder_id, ImapUid.mail_seq.in_(seqs), ImapUid.modseq > modseq
    )
    return {int(seq) for seq in session.scalars(changed)}

"""`\\Recent` (RFC 3501 §2.3.2): the one session that is first told of a message.

A message is recent in exactly one session: the first that SELECTs its folder
(read-write) after it arrived there, or, when sessions have the folder selected
as it arrives, the first of them to see it. A message copied, moved or appended
into a folder takes a new UID there, so it is new there. Dovecot 2.3 does the same.

Each folder keeps a watermark, `imap_folders.recent_uid`: the highest UID a session
has claimed. A session claims what it sees above it with one statement, which
raises the watermark to the highest UID the session sees and reads back the value
it had (`recent_claimed_from` is set from it in the same UPDATE: SQL evaluates
every SET against the row as it was, on SQLite and PostgreSQL alike), under the
row's lock: two sessions, in one process or in several, never claim the same
message. EXAMINE and STATUS count what is above the watermark without claiming.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import BigInteger, bindparam, case, update
from sqlalchemy.orm import Session

from core.store.engine import Store, wake_after_commit
from core.store.models import ImapFolder, table_of
from core.store.prepared import Prepared

__all__ = ["Claimed", "claim_recent"]


@dataclass(frozen=True, slots=True)
class Claimed:
    """The UIDs a claim took: those above `after`, up to and including `upto`."""

    after: int
    upto: int

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, int) and self.after < uid <= self.upto


_FOLDERS = table_of(ImapFolder)
_UPTO = bindparam("b_upto", type_=BigInteger)
_CLAIM = Prepared(
    update(_FOLDERS)
    .where(_FOLDERS.c.id == bindparam("b_folder"), _FOLDERS.c.owner == bindparam("b_owner"))
    .values(
        recent_claimed_from=_FOLDERS.c.recent_uid,
        recent_uid=case(
            (_FOLDERS.c.recent_uid < _UPTO, _UPTO),
            else_=_FOLDERS.c.recent_uid,
        ),
    )
    .returning(_FOLDERS.c.recent_claimed_from, _FOLDERS.c.recent_uid)
)


def claim_in(session: Session, owner: str, folder_id: int, upto: int) -> Claimed:
    """`claim_recent` inside a write the caller runs."""
    params = {"b_folder": folder_id, "b_owner": owner, "b_upto": upto}
    row = _CLAIM.first(session.connection(), params)
    if row is None:  # the folder was deleted meanwhile
        return Claimed(upto, upto)
    claimed = Claimed(int(row[0]), int(row[1]))
    if claimed.upto > claimed.after:  # STATUS counts kept by the owner's sessions changed
        wake_after_commit(session, [owner])
    return claimed


async def claim_recent(store: Store, owner: str, folder_id: int, upto: int) -> Claimed:
    """Claim the folder's messages up to UID `upto` that no session claimed yet."""
    return await store.write(lambda session: claim_in(session, owner, folder_id, upto))

"""Which messages are `\\Recent` in this session (RFC 3501 §2.3.2).

The set is pymap's `SessionFlags` recent set of the selected mailbox, so FETCH FLAGS,
SEARCH RECENT, NEW and OLD, STATUS of the selected mailbox and the `* n RECENT`
updates (imap_view/selected.py) all read it. Messages join it as the session first
sees them, at SELECT and whenever later commands find new ones:

- a read-write session claims those no session claimed yet
  (core/mailboxes/recent.py: one statement per sync that found any, none otherwise);
- a read-only one (EXAMINE) holds them as recent without claiming, and keeps them
  when a read-write session claims them afterwards, as Dovecot 2.3 does.
"""

from __future__ import annotations

from collections.abc import Iterable

from pymap.selected import SelectedMailbox

from core.mailboxes.recent import claim_recent
from core.store.engine import Store

__all__ = ["take_recent"]


async def take_recent(
    store: Store,
    owner: str,
    folder_id: int,
    selected: SelectedMailbox,
    arrived: Iterable[int],
    recent_uid: int,
) -> bool:
    """Add to the session's recent set the UIDs of `arrived` (messages the session
    sees for the first time) above the folder's watermark `recent_uid` as read with
    them; a read-write session only those its claim took. Whether it claimed any
    (a commit, which wakes the owner's sessions)."""
    unclaimed = [uid for uid in arrived if uid > recent_uid]
    if not unclaimed:
        return False
    flags = selected.session_flags
    if selected.readonly:
        for uid in unclaimed:
            flags.add_recent(uid)
        return False
    claimed = await claim_recent(store, owner, folder_id, max(unclaimed))
    for uid in unclaimed:
        if uid in claimed:
            flags.add_recent(uid)
    return claimed.upto > claimed.after

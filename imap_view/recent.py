"""Which messages are `\\Recent` in this session (RFC 3501 §2.3.2).

The set is pymap's `SessionFlags` recent set of the selected mailbox, so FETCH FLAGS,
SEARCH RECENT, NEW and OLD, STATUS of the selected mailbox and the `* n RECENT`
updates (imap_view/selected.py) all read it. Messages join it as the session first
sees them, at SELECT and whenever later commands find new ones:

- a read-write session claims those no session claimed yet
  (core/mailboxes/recent.py: one statement per sync that found any, none otherwise);
- a read-only one (EXAMINE) holds them as recent without claiming, and keeps them
  when a read-write session claims them afterwards, as Dovecot 2.3 does.

A claim is a commit, which wakes the owner's sessions (their STATUS counts changed);
the claiming session's own view stays as fresh as it was (imap_view/freshness.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import itemgetter

from pymap.selected import SelectedMailbox

from core.mailboxes.contents import FolderMessage
from core.mailboxes.recent import claim_recent
from core.store.engine import Store
from imap_view.freshness import Freshness
from imap_view.selected import GatewaySelected

__all__ = ["take_recent", "uids_above"]

_UID = itemgetter(0)  # a FolderMessage's


def uids_above(messages: Sequence[FolderMessage], uid: int) -> list[int]:
    """The UIDs of `messages` (ascending UID) above `uid`."""
    return [m.uid for m in messages[bisect_right(messages, uid, key=_UID) :]]


async def take_recent(
    store: Store,
    freshness: Freshness,
    folder: tuple[str, int],
    selected: SelectedMailbox,
    arrived: Sequence[int],
    recent_uid: int,
) -> None:
    """Add to the session's recent set the UIDs of `arrived` (messages the session
    sees for the first time) above the watermark `recent_uid` of `folder` (owner,
    id), as read with them; a read-write session only those its claim took."""
    unclaimed = [uid for uid in arrived if uid > recent_uid]
    if not unclaimed:
        return
    flags = selected.session_flags
    if selected.readonly:
        for uid in unclaimed:
            flags.add_recent(uid)
        return
    owner, folder_id = folder
    claimed = await claim_recent(store, owner, folder_id, max(unclaimed))
    for uid in unclaimed:
        if uid in claimed:
            flags.add_recent(uid)
    took = claimed.upto > claimed.after
    if took and isinstance(selected, GatewaySelected) and selected.fresh is not None:
        selected.fresh = freshness.past_own_write(selected.fresh)

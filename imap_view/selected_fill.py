"""A freshly selected mailbox filled with all its messages at once (SELECT).

pymap's `SelectedMailbox.set_messages` adds messages one by one (a bisect and a
list insert each, to keep any order correct), and every message is a new object
that the cyclic garbage collector keeps re-scanning while more are made: at
100,000 messages that was most of a second of the event loop. Here, in a worker
thread: the messages are made with the collector paused (they form no cycles),
and a mailbox that has none yet gets the UID-ordered list in one go, written
into the same fields `SynchronizedMessages._update` writes (pymap is pinned to
0.36.7, whose internals this mirrors; `tests/integration/test_imap_changes.py`
checks the outcome through the protocol).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence

from pymap.selected import SelectedMailbox

from core.folders.contents import FolderMessage
from imap_view.message import Message
from imap_view.selected import GatewayMessages

__all__ = ["fill_selected"]

MakeMessages = Callable[[Sequence[FolderMessage]], list[Message]]


def fill_selected(
    selected: SelectedMailbox, messages: Sequence[FolderMessage], make: MakeMessages
) -> None:
    """Sync (run it in a thread): `messages` in ascending UID order, as SELECT reads them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        made = make(messages)
    finally:
        if enabled:
            gc.enable()
    synced = selected.messages
    if synced.exists:  # not fresh: pymap's own way works out what changed
        selected.set_messages(made)
        return
    uids = [m.uid for m in made]
    keys = [m.flags_key for m in made]
    if isinstance(synced, GatewayMessages):
        synced.generation += 1  # changed outside `_update`: the next fork must copy
    synced._uids = set(uids)
    synced._sorted = uids
    synced._seqs_cache = dict(zip(uids, range(1, len(uids) + 1), strict=True))
    synced._cache = dict(zip(uids, made, strict=True))
    synced._flags_key_map = dict(zip(uids, keys, strict=True))
    synced._flags_key_set = set(keys)

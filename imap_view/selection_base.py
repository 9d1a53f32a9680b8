"""A folder's messages as SELECT gives them to a session, made once per folder state and
shared by every session that selects that state.

A SELECT reads the folder's state from the snapshots every session shares
(core/folders/snapshots.py: only what changed since any session last read it). What
was left was making pymap's view of it — a message object per UID and the UID,
position and flag tables of `SynchronizedMessages` — for every session anew: 60 to 110
ms of a QRESYNC resync of 10,000 messages (RFC 7162 §3.2.5, meant to be cheap). The
messages carry no session (imap_view/message.py), so here they are made once per
state, with the tables, and a session's view starts as C-level copies of the tables
(pymap changes its view in place) around the same message objects. A state is known
by its message list: the snapshots make a new list whenever anything changed.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pymap.interfaces.message import FlagsKey
from pymap.selected import SelectedMailbox

from core.folders.contents import FolderMessage
from imap_view.message import Message
from imap_view.pymap_compat import set_tables
from imap_view.selected import GatewayMessages

__all__ = ["SelectionBase", "SelectionBases", "fill_from", "make_base"]

MakeMessages = Callable[[Sequence[FolderMessage]], list[Message]]


@dataclass(frozen=True, slots=True)
class SelectionBase:
    """pymap's `SynchronizedMessages` tables for one folder state, never changed."""

    messages: Sequence[FolderMessage]  # the state's list it was made from (its identity)
    uids: frozenset[int]
    ordered: tuple[int, ...]
    positions: dict[int, int]
    cache: dict[int, Message]
    keys: dict[int, FlagsKey]
    key_set: frozenset[FlagsKey]
    unseen: int
    first_unseen: int | None


def make_base(messages: Sequence[FolderMessage], make: MakeMessages) -> SelectionBase:
    """Sync (run it in a thread): `messages` in ascending UID order, as SELECT reads them.

    The collector is paused while the objects are made (they form no cycles and would
    only be scanned again and again)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        made = make(messages)
        uids = [m.uid for m in made]
        keys = [m.flags_key for m in made]
        unseen = [n for n, m in enumerate(messages, 1) if not m.seen]
        return SelectionBase(
            messages,
            frozenset(uids),
            tuple(uids),
            dict(zip(uids, range(1, len(uids) + 1), strict=True)),
            dict(zip(uids, made, strict=True)),
            dict(zip(uids, keys, strict=True)),
            frozenset(keys),
            len(unseen),
            unseen[0] if unseen else None,
        )
    finally:
        if enabled:
            gc.enable()


def fill_from(selected: SelectedMailbox, base: SelectionBase) -> None:
    """Put the base's messages into a session's view: copies of the tables, written into
    the tables `SynchronizedMessages` keeps (imap_view/pymap_compat.py;
    tests/integration/test_imap_changes.py checks the outcome)."""
    synced = selected.messages
    if synced.exists:  # not fresh: pymap's own way works out what changed
        selected.set_messages(list(base.cache.values()))
        return
    if isinstance(synced, GatewayMessages):
        synced.generation += 1  # changed outside `_update`: the next fork must copy
    set_tables(
        synced,
        uids=set(base.uids),
        ordered=list(base.ordered),
        positions=base.positions.copy(),
        cache=base.cache.copy(),
        keys=base.keys.copy(),
        key_set=set(base.key_set),
    )


class SelectionBases:
    """The bases of the folders selected last, by folder id, up to `max_messages` in all
    (least recently used out), like the snapshots they are made from."""

    def __init__(self, max_messages: int = 200_000) -> None:
        self.max_messages = max_messages
        self._bases: OrderedDict[int, SelectionBase] = OrderedDict()
        self._kept = 0

    def get(self, folder_id: int, messages: Sequence[FolderMessage]) -> SelectionBase | None:
        base = self._bases.get(folder_id)
        if base is None or base.messages is not messages:
            return None
        self._bases.move_to_end(folder_id)
        return base

    def put(self, folder_id: int, base: SelectionBase) -> None:
        if len(base.ordered) > self.max_messages:
            return
        previous = self._bases.pop(folder_id, None)
        if previous is not None:
            self._kept -= len(previous.ordered)
        self._bases[folder_id] = base
        self._kept += len(base.ordered)
        while self._kept > self.max_messages and len(self._bases) > 1:
            _, evicted = self._bases.popitem(last=False)
            self._kept -= len(evicted.ordered)

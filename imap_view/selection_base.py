"""A folder's messages as SELECT gives them to a session, made once per folder state and
shared by every session that selects that state.

A SELECT reads the folder's state from the snapshots every session shares
(core/mailboxes/snapshots.py: only what changed since any session last read it). The
messages carry no session (imap_view/message.py), so they are made once per state, in a
worker thread (a folder may hold 100,000), and handed to pymap's `set_messages` by
every session that selects it. A state is known by its message list: the snapshots
make a new list whenever anything changed.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pymap.selected import SelectedMailbox

from core.mailboxes.contents import FolderMessage
from imap_view.message import Message

__all__ = ["SelectionBase", "SelectionBases", "fill_from", "make_base"]

MakeMessages = Callable[[Sequence[FolderMessage]], list[Message]]


@dataclass(frozen=True, slots=True)
class SelectionBase:
    """One folder state's messages, never changed."""

    messages: Sequence[FolderMessage]  # the state's list it was made from (its identity)
    cache: dict[int, Message]  # by UID, in ascending UID order
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
        unseen = [n for n, m in enumerate(messages, 1) if not m.seen]
        return SelectionBase(
            messages,
            {m.uid: m for m in made},
            len(unseen),
            unseen[0] if unseen else None,
        )
    finally:
        if enabled:
            gc.enable()


def fill_from(selected: SelectedMailbox, base: SelectionBase) -> None:
    """Put the base's messages into a session's view, through pymap's own `set_messages`."""
    selected.set_messages(list(base.cache.values()))


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
        if len(base.cache) > self.max_messages:
            return
        previous = self._bases.pop(folder_id, None)
        if previous is not None:
            self._kept -= len(previous.cache)
        self._bases[folder_id] = base
        self._kept += len(base.cache)
        while self._kept > self.max_messages and len(self._bases) > 1:
            _, evicted = self._bases.popitem(last=False)
            self._kept -= len(evicted.cache)

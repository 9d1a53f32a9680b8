"""What one IMAP session of a human read, for their other sessions of this process.

A commit for a human wakes all their sessions at once (imap_view/freshness.py), and
each then read the same thing: a STORE in one of five sessions made five reads of
the folder's changes and five of the content keys of the mails they fetch. A read
stamped with the human's wake count (`Stamp.shared`) is the truth for every session
of theirs while that count stands and the read is younger than `MAX_AGE`: the
others take it instead of reading.

- A folder's changes since a mod-sequence (core/mailboxes/contents.py
  `read_changes`): the last read of each folder, for the sessions that knew the same
  mod-sequence (those that follow the folder do: each read the last change).
- Content keys (imap_view/contents.py): per human, the keys read since their last
  wake; an original's key (its seq alone) never changes and is kept across wakes.

Bounded: the folders and humans read last (least recently used out), so many keys
per human.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from core.mailboxes.contents import FolderChanges
from imap_view.freshness import Freshness, Stamp

__all__ = ["ContentKeys", "SharedReads"]

MAX_FOLDERS: Final = 1024
MAX_HUMANS: Final = 256
MAX_KEYS: Final = 100_000  # per human; past it, the rendering keys are read again

Key = tuple[object, ...]


@dataclass(slots=True)
class ContentKeys:
    """A human's content keys by mail seq, and the stamp of the read that began their
    current set (None: only originals' keys, which always hold)."""

    keys: dict[int, Key] = field(default_factory=dict)
    stamp: Stamp | None = None

    def current(self, freshness: Freshness) -> dict[int, Key]:
        """The keys that hold for a session of the human now."""
        if self.stamp is not None and not freshness.holds_shared(self.stamp):
            self.keys, self.stamp = _originals(self.keys), None
        return self.keys

    def add(self, read: Mapping[int, Key], stamp: Stamp) -> None:
        """Keys a read stamped `stamp` found."""
        if self.stamp is None or self.stamp.shared != stamp.shared:
            self.keys, self.stamp = _originals(self.keys), stamp
        if len(self.keys) + len(read) > MAX_KEYS:
            self.keys = {}
        self.keys.update(read)


def _originals(keys: dict[int, Key]) -> dict[int, Key]:
    """The keys of mails served as their original bytes: `(seq,)`, never changed."""
    return {seq: key for seq, key in keys.items() if len(key) == 1}


class SharedReads:
    """The process's shared reads (see the module doc)."""

    def __init__(self) -> None:
        self._changes: OrderedDict[int, tuple[int, Stamp, FolderChanges]] = OrderedDict()
        self._keys: OrderedDict[str, ContentKeys] = OrderedDict()

    def changes(
        self, folder_id: int, since: int, freshness: Freshness
    ) -> tuple[Stamp, FolderChanges] | None:
        """The folder's changes after mod-sequence `since` as another session read them,
        stamped for this session, if that read holds."""
        found = self._changes.get(folder_id)
        if found is None:
            return None
        known, stamp, changes = found
        if known != since or not freshness.holds_shared(stamp):
            return None
        return freshness.own(stamp), changes

    def offer(self, folder_id: int, since: int, stamp: Stamp, changes: FolderChanges) -> None:
        """A read of the folder's changes after `since`: kept unless a later one is."""
        found = self._changes.get(folder_id)
        if found is not None and found[1].shared > stamp.shared:
            return
        self._changes[folder_id] = (since, stamp, changes)
        self._changes.move_to_end(folder_id)
        while len(self._changes) > MAX_FOLDERS:
            self._changes.popitem(last=False)

    def keys_of(self, owner: str) -> ContentKeys:
        found = self._keys.get(owner)
        if found is None:
            found = self._keys[owner] = ContentKeys()
            while len(self._keys) > MAX_HUMANS:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(owner)
        return found

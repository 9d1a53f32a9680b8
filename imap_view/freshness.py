"""What an IMAP session read, kept while the store cannot hold anything newer for it.

Every change IMAP shows is committed through the store, which wakes the owner's
sessions after COMMIT (core/store/engine.py `wake_after_commit` and the event rows;
on PostgreSQL other replicas' commits arrive by NOTIFY, core/store/replicas.py, and
a reconnect of LISTEN wakes everyone). IDLE already rests on that. So a read taken
when the session's wake count (`Subscription.wakes`) was g is still the truth
while the count is g: a NOOP, a STATUS or a LIST of an idle session, or one polling
a quiet mailbox, needs no store read at all, and a busy gateway does not spend a
thread hand-off and a query per command to learn that nothing changed.

The same holds across the sessions of one human: every session of theirs is woken
by the same commits, counted once per human (`Wakes`), so a read another session
took while that count stood still is the truth for this one too
(imap_view/shared_reads.py: five sessions of one human read a change once, not five
times).

Only a process that writes the store without this gateway's bus can change what a
session shows unseen: another gateway process on the same SQLite file, or the CLI
(`agentmail import`). So a kept read also ages out after `MAX_AGE` seconds, after
which the next command reads again, as every command did before.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar, cast

from core.store.bus import Subscription

__all__ = ["MAX_AGE", "Freshness", "Stamp"]

T = TypeVar("T")

MAX_AGE = 2.0  # seconds a read is trusted without a wake-up (writers outside the process)


@dataclass(frozen=True, slots=True)
class Stamp:
    """When a read began: the session's wake count then, the monotonic clock, and the
    human's wake count (the same for all their sessions)."""

    generation: int
    at: float
    shared: int = -1


class Freshness:
    """One session's wake count, and the reads it keeps by key (folder list, counts)."""

    def __init__(self, wakes: Subscription, max_age: float = MAX_AGE) -> None:
        self.wakes = wakes
        self.max_age = max_age
        self._kept: dict[Hashable, tuple[Stamp, object]] = {}

    def stamp(self) -> Stamp:
        """Take it before the read it vouches for: a commit after it wakes, one before
        it is in the read."""
        return Stamp(self.wakes.wakes, time.monotonic(), self.wakes.shared.count)

    def holds(self, stamp: Stamp | None) -> bool:
        """Whether nothing can have changed for the session since `stamp`."""
        return (
            stamp is not None
            and stamp.generation == self.wakes.wakes
            and time.monotonic() - stamp.at < self.max_age
        )

    def past_own_write(self, stamp: Stamp) -> Stamp | None:
        """`stamp` carried past the one wake-up the session's own write just caused
        (told before the write returned), if no other came since; else None. The
        wake-up flag is cleared with it, or IDLE would wake for nothing."""
        if self.wakes.wakes != stamp.generation + 1:
            return None
        self.wakes.clear()
        # The human's count moved by that same wake-up, unless another session's came too.
        shared = stamp.shared + 1 if self.wakes.shared.count == stamp.shared + 1 else -1
        return Stamp(stamp.generation + 1, stamp.at, shared if stamp.shared >= 0 else -1)

    def holds_shared(self, stamp: Stamp | None) -> bool:
        """Whether nothing can have changed for the human since `stamp`, taken by any
        of their sessions."""
        return (
            stamp is not None
            and stamp.shared == self.wakes.shared.count
            and time.monotonic() - stamp.at < self.max_age
        )

    def own(self, stamp: Stamp) -> Stamp:
        """Another session's `stamp` that `holds_shared` as this session's: no wake
        came since, so this session's count then was its count now."""
        return Stamp(self.wakes.wakes, stamp.at, stamp.shared)

    async def read(self, key: Hashable, read: Callable[[], Awaitable[T]]) -> T:
        """`read()`, or what it gave last time while that still holds."""
        kept = self._kept.get(key)
        if kept is not None and self.holds(kept[0]):
            return cast(T, kept[1])
        stamp = self.stamp()
        value = await read()
        if any(s.generation != stamp.generation for s, _ in self._kept.values()):
            self._kept.clear()  # woken since: the others are stale
        self._kept[key] = (stamp, value)
        return value

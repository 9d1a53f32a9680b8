"""The in-process event bus: wakes the streams (SSE, IMAP IDLE) of a recipient, and
hands SSE streams the events this process committed, so they need not read them back.

Events are rows (`core/store/events.py`) and stay the source of truth: a stream
starts and resumes (`Last-Event-ID`) by reading them, and reads them again whenever
it cannot be sure that the events pushed to it are all there is. After COMMIT,
`Store.write` pushes the transaction's events with the ids the database gave them
(`INSERT … RETURNING`). Event ids become visible in commit order on both databases
(one writer on SQLite; an advisory lock on PostgreSQL, core/store/engine.py), so
when a transaction's first id is the one after the last id this process pushed,
no row lies between them that the streams have not been handed. Anything else — a
gap (another process or replica wrote events, a rolled-back attempt used ids, two
commits came back out of order), a wake-up from another replica (`publish`), a
stream that fell behind by more than `PUSH_LIMIT` events — makes the streams read
the rows again, as they always did. A stream that has read is complete through
the newest id of its snapshot: what came after it is in its pushed queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

PUSH_LIMIT = 500  # events queued for one stream before it reads the rows instead


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    type: str
    payload: dict[str, Any]
    created_at: datetime | None = None  # written in the change's transaction: ~its commit


Pushed = tuple[str, StoredEvent]  # (recipient, event), as one transaction inserted them
# Woken by every commit that wrote events, here or (by its NOTIFY) in another replica: a
# name no person has (names are letters, digits, `.`, `_`, `-`). The webhook senders
# listen to it (core/webhooks/fanout.py).
ANY_EVENT = "!events"


class Wakes:
    """How many times a recipient was woken in this process, shared by all their
    subscriptions: what one of them read while the count stood still holds for each
    (IMAP's sessions of one human share their reads, imap_view/shared_reads.py)."""

    __slots__ = ["count"]

    def __init__(self) -> None:
        self.count = 0


class Subscription:
    """A recipient's wake-up flag. Clear it, read, then wait: no wake is lost.

    With `events`, it also keeps the events pushed to it (SSE); `complete` says the
    queue holds every event after what the stream has read. `wakes` counts the
    wakes: a reader that noted it before reading knows, while it is unchanged, that
    nothing was committed for this recipient since (IMAP keeps what a session read
    until then, imap_view/freshness.py).
    """

    def __init__(
        self, recipient: str, *, events: bool = False, shared: Wakes | None = None
    ) -> None:
        self.recipient = recipient
        self.shared = shared if shared is not None else Wakes()  # the recipient's count
        self.keeps_events = events
        self.complete = False
        self.generation = 0  # advanced whenever rows may exist that were not pushed
        self._pushed: list[StoredEvent] = []
        self._flag = asyncio.Event()
        self.wakes = 0

    def clear(self) -> None:
        self._flag.clear()

    def wake(self) -> None:
        self.wakes += 1
        self._flag.set()

    async def wait(self) -> None:
        await self._flag.wait()

    def stale(self) -> None:
        """Rows may exist that were not pushed: read them at the next wake."""
        self.complete = False
        self.generation += 1
        self._pushed.clear()

    def push(self, event: StoredEvent) -> None:
        if not self.keeps_events:
            return
        if len(self._pushed) >= PUSH_LIMIT:  # a slow reader: the rows keep them
            self.stale()
            return
        self._pushed.append(event)

    def take(self, after: int) -> list[StoredEvent]:
        """The pushed events after `after` (the stream's cursor), in id order."""
        taken = sorted((e for e in self._pushed if e.id > after), key=lambda e: e.id)
        self._pushed.clear()
        return taken

    def caught_up(self, through: int, generation: int) -> None:
        """The stream read every row of its recipient up to `through`; unless a gap was
        seen since that read began (`generation`), the queue now completes it."""
        if generation != self.generation:
            return
        self._pushed = [e for e in self._pushed if e.id > through]
        self.complete = True


class EventBus:
    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}
        # Kept when the last subscription goes: a count must never start again (a read
        # stamped with an old count would hold).
        self._wakes: dict[str, Wakes] = {}
        self._through: int | None = None  # every event id up to here was pushed
        self.closed = False

    def close(self) -> None:
        """Shutting down: wake every stream so it can see `closed` and end."""
        self.closed = True
        self.publish_all()

    @contextmanager
    def subscribe(self, recipient: str, *, events: bool = False) -> Iterator[Subscription]:
        shared = self._wakes.setdefault(recipient, Wakes())
        subscription = Subscription(recipient, events=events, shared=shared)
        self._subscriptions.setdefault(recipient, set()).add(subscription)
        try:
            yield subscription
        finally:
            subs = self._subscriptions.get(recipient)
            if subs is not None:
                subs.discard(subscription)
                if not subs:
                    del self._subscriptions[recipient]

    def push(self, events: Sequence[Pushed], wakes: Iterable[str]) -> None:
        """After COMMIT: one transaction's events (all it inserted, ids ascending) and
        the names it wakes (their recipients, and names woken without an event)."""
        if events:
            first, last = events[0][1].id, events[-1][1].id
            if self._through is None or first > self._through + 1:
                self._all_stale()  # rows between that this process did not push
            if self._through is None or last > self._through:
                self._through = last
            for recipient, event in events:
                for subscription in self._subscriptions.get(recipient, ()):
                    subscription.push(event)
            self._wake([ANY_EVENT])
        self._wake(wakes)

    def publish(self, recipients: Iterable[str]) -> None:
        """Another process or replica wrote rows for these recipients: they read them."""
        recipients = list(recipients)
        if recipients:
            self._wake([ANY_EVENT])
        for recipient in recipients:
            self._woken(recipient)
            for subscription in self._subscriptions.get(recipient, ()):
                subscription.stale()
                subscription.wake()

    def publish_all(self) -> None:
        """Wake every stream: after a lost cross-replica link, each re-reads from its cursor."""
        self._all_stale()
        for wakes in self._wakes.values():
            wakes.count += 1
        for subscriptions in self._subscriptions.values():
            for subscription in subscriptions:
                subscription.wake()

    def _all_stale(self) -> None:
        for subscriptions in self._subscriptions.values():
            for subscription in subscriptions:
                subscription.stale()

    def _wake(self, recipients: Iterable[str]) -> None:
        for recipient in recipients:
            self._woken(recipient)
            for subscription in self._subscriptions.get(recipient, ()):
                subscription.wake()

    def _woken(self, recipient: str) -> None:
        wakes = self._wakes.get(recipient)
        if wakes is not None:
            wakes.count += 1

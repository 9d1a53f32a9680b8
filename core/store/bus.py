"""The in-process event bus: wakes the streams (SSE, later IMAP IDLE) of a recipient.

It carries no payloads. Events are rows (`core/store/events.py`); the bus only says
"recipient X has new rows", and each stream reads them from the database after
its own cursor. So a stream never sees an event that was not committed, never
misses one it was woken for, and resumes with `Last-Event-ID` the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager


class Subscription:
    """A recipient's wake-up flag. Clear it, read, then wait: no wake is lost.

    `generation` counts the wakes: a reader that noted it before reading knows, while
    it is unchanged, that nothing was committed for this recipient since (IMAP keeps
    what a session read until then, imap_view/freshness.py)."""

    def __init__(self, recipient: str) -> None:
        self.recipient = recipient
        self._flag = asyncio.Event()
        self.generation = 0

    def clear(self) -> None:
        self._flag.clear()

    def wake(self) -> None:
        self.generation += 1
        self._flag.set()

    async def wait(self) -> None:
        await self._flag.wait()


class EventBus:
    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}
        self.closed = False

    def close(self) -> None:
        """Shutting down: wake every stream so it can see `closed` and end."""
        self.closed = True
        self.publish_all()

    @contextmanager
    def subscribe(self, recipient: str) -> Iterator[Subscription]:
        subscription = Subscription(recipient)
        self._subscriptions.setdefault(recipient, set()).add(subscription)
        try:
            yield subscription
        finally:
            subs = self._subscriptions.get(recipient)
            if subs is not None:
                subs.discard(subscription)
                if not subs:
                    del self._subscriptions[recipient]

    def publish(self, recipients: Iterable[str]) -> None:
        for recipient in recipients:
            for subscription in self._subscriptions.get(recipient, ()):
                subscription.wake()

    def publish_all(self) -> None:
        """Wake every stream: after a lost cross-replica link, each re-reads from its cursor."""
        for subscriptions in self._subscriptions.values():
            for subscription in subscriptions:
                subscription.wake()

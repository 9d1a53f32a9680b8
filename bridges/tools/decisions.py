"""Decisions on permission requests as they are seen on the event stream.

`request_permission` blocks until its request is decided. The event stream
(`permission_decision`) wakes it at once; the tool then reads the request's
state itself, so a decision made before it started watching, or while the
stream was down, is never missed: the board only says "look now", the mail is
the truth (and the tool looks again now and then even without a wake-up).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress


class DecisionBoard:
    def __init__(self) -> None:
        self._watchers: defaultdict[str, set[asyncio.Event]] = defaultdict(set)

    def seen(self, mail_id: str) -> None:
        """A `permission_decision` event for this request arrived."""
        for watcher in self._watchers.get(mail_id, ()):
            watcher.set()

    @contextmanager
    def watching(self, mail_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever a decision on `mail_id` is seen. Clear it *before*
        reading the request's state, so a decision arriving meanwhile still wakes."""
        watcher = asyncio.Event()
        self._watchers[mail_id].add(watcher)
        try:
            yield watcher
        finally:
            self._watchers[mail_id].discard(watcher)
            if not self._watchers[mail_id]:
                del self._watchers[mail_id]


async def woken(watcher: asyncio.Event, seconds: float) -> bool:
    """Wait up to `seconds` for the watcher; True if it was set."""
    with suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await watcher.wait()
    return watcher.is_set()

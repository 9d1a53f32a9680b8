"""Slowing down password guessing, for SMTP and IMAP alike: after N failed logins
from one address within a minute, each further attempt from it waits before it
is checked.

In memory, per process: a restart forgets, which is acceptable for a delay (it is
not a lock-out, so a legitimate user is never shut out, only slowed).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

WINDOW_SECONDS = 60.0


class LoginThrottle:
    def __init__(self, failures: int, delay_seconds: float) -> None:
        self.failures = failures
        self.delay_seconds = delay_seconds
        self._failed: dict[str, deque[float]] = {}

    def _recent(self, peer: str) -> int:
        times = self._failed.get(peer)
        if times is None:
            return 0
        cutoff = time.monotonic() - WINDOW_SECONDS
        while times and times[0] < cutoff:
            times.popleft()
        if not times:
            del self._failed[peer]
            return 0
        return len(times)

    async def wait(self, peer: str) -> None:
        """Before checking credentials: wait if this address failed too often lately."""
        if self._recent(peer) >= self.failures:
            await asyncio.sleep(self.delay_seconds)

    def failed(self, peer: str) -> None:
        self._failed.setdefault(peer, deque()).append(time.monotonic())

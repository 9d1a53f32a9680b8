"""Slowing down password guessing, for SMTP, IMAP and the web alike: after N failed
logins from one address within a minute, each further attempt from it waits
before it is checked (SMTP, IMAP), or is refused until the window has room
again (the web login: `429` with `Retry-After`, per address and per account).

In memory: a restart forgets, which is acceptable for a delay (it is not a
lock-out, so a legitimate user is never shut out, only slowed; the web's refusal
lasts at most the one-minute window, and IMAP and SMTP still work). One instance
serves every protocol, so guessing over all of them at once is no faster than over
one; on PostgreSQL each failure is also told to every other process (`tell`, over
NOTIFY: core/store/login_notices.py), so guessing against several workers or
replicas is no faster than against one either.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Callable

WINDOW_SECONDS = 60.0
MAX_TRACKED_FAILURES = 1000  # per name: a higher limit than this is never reached
# Past this many tracked names, expired ones are swept (failed logins are slow:
# each costs a password hash, so the table stays small between sweeps).
_SWEEP_ABOVE = 10_000


class LoginThrottle:
    def __init__(self, failures: int, delay_seconds: float) -> None:
        self.failures = failures
        self.delay_seconds = delay_seconds
        self._failed: dict[str, deque[float]] = {}
        self.tell: Callable[[str], None] | None = None  # other processes: each failure

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
        self.failed_elsewhere(peer)
        if self.tell is not None:
            self.tell(peer)

    def failed_elsewhere(self, peer: str) -> None:
        """A failure another process saw (or this one: `failed` records it here)."""
        if len(self._failed) > _SWEEP_ABOVE:
            for name in list(self._failed):
                self._recent(name)
        self._failed.setdefault(peer, deque(maxlen=MAX_TRACKED_FAILURES)).append(time.monotonic())

    def retry_after(self, name: str, allowed: int) -> float:
        """Seconds until `name` (an address, or `account:<user>`) is below `allowed`
        failures in the window again; 0 when it is below already."""
        count = self._recent(name)
        if count < allowed:
            return 0.0
        times = self._failed[name]
        return max(0.0, times[count - allowed] + WINDOW_SECONDS - time.monotonic())


class ConnectionsPerAddress:
    """Open connections by client address, for one protocol's listeners together (SMTP
    and SMTPS, IMAP and IMAPS, HTTP): a client over `limit` is refused at connect."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        """Count a new connection from `address`; False (not counted) when it has `limit`."""
        if self._open[address] >= self.limit:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        """A connection counted by `take` has closed."""
        if address in self._open:
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]

"""Counting failed logins, for the web, SMTP and IMAP alike: one guess budget.

Failures are counted by name within a sliding minute: a client address, and
`account:<user>` for the account a login named. core/identity/login_guard.py
decides with these counts: an address over its limit is refused, an account over
its limit is slowed (`delay`). `admit` keeps parallel connections from one address
from getting more checks than its failures leave room for: twenty connections
guess no faster than one.

In memory: a restart forgets, which is acceptable for a limit of a minute. One
instance serves every protocol, so guessing over all of them at once is no faster
than over one; on PostgreSQL each failure is also told to every other process
(`tell`, over NOTIFY: core/cluster/login_notices.py), so guessing against several
workers or replicas is no faster than against one either (checks in flight are
per process).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, deque
from collections.abc import Callable

from core.errors import RateLimited

WINDOW_SECONDS = 60.0
MAX_TRACKED_FAILURES = 1000  # per name: a higher limit than this is never reached
# Past this many tracked names, expired ones are swept (failed logins are slow:
# each costs a password hash, so the table stays small between sweeps).
_SWEEP_ABOVE = 10_000
_MAX_DOUBLINGS = 30  # 2**30 times the first delay is past any cap


class LoginThrottle:
    def __init__(self) -> None:
        self._failed: dict[str, deque[float]] = {}
        self._checking: Counter[str] = Counter()  # checks running, by client address
        self._finished: dict[str, asyncio.Event] = {}  # set when one of them ends
        self.tell: Callable[[str], None] | None = None  # other processes: each failure

    def _recent(self, name: str) -> int:
        times = self._failed.get(name)
        if times is None:
            return 0
        cutoff = time.monotonic() - WINDOW_SECONDS
        while times and times[0] < cutoff:
            times.popleft()
        if not times:
            del self._failed[name]
            return 0
        return len(times)

    def failed(self, name: str) -> None:
        self.failed_elsewhere(name)
        if self.tell is not None:
            self.tell(name)

    def failed_elsewhere(self, name: str) -> None:
        """A failure another process saw (or this one: `failed` records it here)."""
        if len(self._failed) > _SWEEP_ABOVE:
            for known in list(self._failed):
                self._recent(known)
        self._failed.setdefault(name, deque(maxlen=MAX_TRACKED_FAILURES)).append(time.monotonic())

    def retry_after(self, name: str, allowed: int) -> float:
        """Seconds until `name` (an address, or `account:<user>`) is below `allowed`
        failures in the window again; 0 when it is below already."""
        count = self._recent(name)
        if count < allowed:
            return 0.0
        times = self._failed[name]
        return max(0.0, times[count - allowed] + WINDOW_SECONDS - time.monotonic())

    async def admit(self, address: str, allowed: int) -> None:
        """Before a login from `address` is checked: `RateLimited` when the address has
        `allowed` failures in the window; else wait until its failures and the checks
        running for it leave room for one more, and count this one until `done`."""
        while True:
            failures = self._recent(address)
            if failures >= allowed:
                seconds = max(1, math.ceil(self.retry_after(address, allowed)))
                raise RateLimited(f"too many failed logins: try again in {seconds} s", seconds)
            if failures + self._checking[address] < allowed:
                self._checking[address] += 1
                return
            finished = self._finished.setdefault(address, asyncio.Event())
            await finished.wait()

    def done(self, address: str) -> None:
        """A check `admit` let through has ended (its failure, if any, is counted)."""
        self._checking[address] -= 1
        if self._checking[address] <= 0:
            del self._checking[address]
        finished = self._finished.pop(address, None)
        if finished is not None:
            finished.set()

    def delay(self, name: str, allowed: int, first: float, most: float) -> float:
        """The wait before a password check on `name` (`account:<user>`): none below
        `allowed` failures in the window, then `first`, doubled with each further
        failure, at most `most`."""
        over = self._recent(name) - allowed
        if over < 0:
            return 0.0
        return min(most, first * 2.0 ** min(over, _MAX_DOUBLINGS))


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

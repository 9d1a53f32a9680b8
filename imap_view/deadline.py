"""A connection's read timeouts on one timer that moves lazily.

Every command an IMAP client sends is awaited under a timeout (the idle timeout
between commands, RFC 3501 §5.4; imap_view/connection.py). `asyncio.timeout` per
read made a `Timeout`, pushed a timer on the loop's heap and cancelled it again:
work on every command for a timer that almost never fires. Here a
read only writes down when it must be done by; the connection's one timer stays
where it was unless the new deadline is earlier, and when it fires before the
current deadline it is armed again for that deadline. A read that takes too long
has its task cancelled, as `asyncio.timeout` does, and raises `TimeoutError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["Deadline"]

_T = TypeVar("_T")


class Deadline:
    """The read deadlines of one task (a connection's), on one lazily moved timer."""

    __slots__ = ["_expired", "_handle", "_loop", "_task", "_when"]

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._handle: asyncio.TimerHandle | None = None
        self._when: float | None = None  # the current read's deadline; None: not reading
        self._task: asyncio.Task[object] | None = None
        self._expired = False

    async def within(self, seconds: float, read: Awaitable[_T]) -> _T:
        """`await read`, or `TimeoutError` once `seconds` have passed."""
        loop = self._loop
        when = loop.time() + seconds
        task = asyncio.current_task()
        assert task is not None
        self._when, self._task = when, task
        handle = self._handle
        if handle is None or handle.when() > when:
            if handle is not None:
                handle.cancel()
            self._handle = loop.call_at(when, self._fire)
        try:
            return await read
        except asyncio.CancelledError:
            if self._expired:
                self._expired = False
                if task.uncancel() == 0:  # only this deadline cancelled it
                    raise TimeoutError() from None
            raise
        finally:
            self._when = None

    def close(self) -> None:
        """No timer left on the loop once the connection is done."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def expire_now(self) -> None:
        """End the read under way, if any, as if its deadline had passed (`TimeoutError`)."""
        if self._when is not None and self._task is not None and not self._expired:
            self._expired = True
            self._task.cancel()

    def _fire(self) -> None:
        self._handle = None
        when, task = self._when, self._task
        if when is None or task is None:
            return  # not reading now: the next read arms the timer again
        if when > self._loop.time():
            self._handle = self._loop.call_at(when, self._fire)  # moved on since armed
            return
        self._expired = True
        task.cancel()

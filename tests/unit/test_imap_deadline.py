"""imap_view/deadline.py: reads under a connection's one lazily moved timer time out
like `asyncio.timeout`, a later read's deadline moves the timer on, and a cancellation
from outside stays a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from imap_view.deadline import Deadline

SHORT = 0.15


async def test_a_read_in_time_returns_its_value_and_a_slow_one_times_out() -> None:
    deadline = Deadline()
    assert await deadline.within(SHORT, asyncio.sleep(0, "line")) == "line"
    started = asyncio.get_running_loop().time()
    with pytest.raises(TimeoutError):
        await deadline.within(SHORT, asyncio.sleep(10))
    # Not early (0.01: the clock's resolution); not late is what the TimeoutError shows,
    # as the sleep would have returned after 10 s.
    assert asyncio.get_running_loop().time() - started >= SHORT - 0.01
    assert await deadline.within(SHORT, asyncio.sleep(0, "next")) == "next"  # usable again
    deadline.close()


async def test_the_timer_follows_the_current_read_not_the_first() -> None:
    """Reads one after another, each shorter than its timeout but together longer: the
    timer armed by the first fires during a later one and must wait for that one's own
    deadline instead of cutting it."""
    deadline = Deadline()
    for _ in range(4):
        await deadline.within(SHORT, asyncio.sleep(SHORT / 2))
    # Between reads nothing is timed: a pause longer than the timeout costs nothing.
    await asyncio.sleep(2 * SHORT)
    assert await deadline.within(SHORT, asyncio.sleep(SHORT / 2, "kept")) == "kept"
    deadline.close()


async def test_a_shorter_timeout_than_the_timer_waits_for_is_kept() -> None:
    """An idle wait (long) arms the timer far away; a command line's rest (short) after
    it must not wait for that."""
    deadline = Deadline()
    await deadline.within(100.0, asyncio.sleep(0))
    started = asyncio.get_running_loop().time()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(deadline.within(SHORT, asyncio.sleep(200)), 150)
    # Waiting for the idle wait's timer would take 100 s; no load makes SHORT take 50.
    assert asyncio.get_running_loop().time() - started < 50
    deadline.close()


async def test_a_cancellation_from_outside_is_not_a_timeout() -> None:
    deadline = Deadline()
    reading = asyncio.create_task(deadline.within(10.0, asyncio.sleep(10)))
    await asyncio.sleep(SHORT)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    deadline.close()


async def test_expire_now_ends_the_read_under_way_as_a_timeout() -> None:
    """A revoked credential ends the session's wait for the client at once."""
    deadline = Deadline()
    read = asyncio.create_task(deadline.within(60, asyncio.sleep(60)))
    await asyncio.sleep(0)
    deadline.expire_now()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(read, 5)
    deadline.expire_now()  # no read under way: nothing to end
    assert await deadline.within(SHORT, asyncio.sleep(0, "next")) == "next"
    deadline.close()

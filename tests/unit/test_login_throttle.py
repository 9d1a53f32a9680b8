"""core/identity/throttle.py: the counts behind the one guess budget — an address over
its limit is refused, parallel checks from one address never outrun its failures, and
an account's wait grows with its failures up to a cap."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import RateLimited
from core.identity.throttle import LoginThrottle


def test_an_accounts_wait_starts_at_its_limit_doubles_and_is_capped() -> None:
    throttle = LoginThrottle()
    waits = []
    for _ in range(8):
        waits.append(throttle.delay("account:jianf", 3, 1.0, 10.0))
        throttle.failed("account:jianf")
    assert waits == [0.0, 0.0, 0.0, 1.0, 2.0, 4.0, 8.0, 10.0]
    assert throttle.delay("account:other", 3, 1.0, 10.0) == 0.0


async def test_an_address_over_its_limit_is_refused_with_the_wait() -> None:
    throttle = LoginThrottle()
    for _ in range(2):
        await throttle.admit("10.0.0.1", 2)
        throttle.failed("10.0.0.1")
        throttle.done("10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        await throttle.admit("10.0.0.1", 2)
    assert 1 <= refused.value.retry_after <= 60
    await throttle.admit("10.0.0.2", 2)  # another address is not concerned


async def test_checks_in_flight_leave_room_only_for_what_failures_allow() -> None:
    """Two checks may run for an address allowed two failures; a third waits for one to
    end, then runs if it succeeded, or is refused if both failed."""
    throttle = LoginThrottle()
    await throttle.admit("10.0.0.1", 2)
    await throttle.admit("10.0.0.1", 2)
    third = asyncio.create_task(throttle.admit("10.0.0.1", 2))
    await asyncio.sleep(0)
    assert not third.done()
    throttle.done("10.0.0.1")  # the first succeeded: room again
    await asyncio.wait_for(third, 5)
    fourth = asyncio.create_task(throttle.admit("10.0.0.1", 2))
    await asyncio.sleep(0)
    throttle.failed("10.0.0.1")
    throttle.done("10.0.0.1")
    throttle.failed("10.0.0.1")
    throttle.done("10.0.0.1")  # two failures now: the waiting one is refused
    with pytest.raises(RateLimited):
        await asyncio.wait_for(fourth, 5)

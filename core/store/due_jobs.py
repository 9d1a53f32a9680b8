"""Jobs that run when there is work: woken by the commit that queued it (in any
replica: the store's wake-ups, core/store/bus.py) or when the next piece falls due,
and asleep otherwise, so an idle gateway does not ask its database every second.

Web Push, outbound mail, webhooks and the permission requests' deadlines run this way
(gateway/background.py, core/webhooks/sender.py). A wake-up lost between replicas is
made good when the replica's listener reconnects (it wakes every local subscriber)
and, at the latest, by the look every `QUIET_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import utcnow

log = logging.getLogger("agentmail")
QUIET_SECONDS = 60.0  # the longest sleep, whatever the queue says
SOONEST_SECONDS = 0.1  # due now but not taken (another replica holds it): look again then
AFTER_FAILURE_SECONDS = 1.0


def seconds_until(due: datetime | None, now: datetime, quiet: float = QUIET_SECONDS) -> float:
    """How long to sleep before the next round: until `due`, within the bounds above."""
    if due is None:
        return quiet
    return min(quiet, max(SOONEST_SECONDS, (due - now).total_seconds()))


Round = Callable[[], Awaitable[datetime | None]]  # does the work; when the next is due


def then_next_due(
    store: Store,
    job: Callable[[], Awaitable[object]],
    next_due: Callable[[Session], datetime | None],
) -> Round:
    """A round of `job`, then the queue's own word on when its next job is due."""

    async def round_() -> datetime | None:
        await job()
        return await store.read(next_due)

    return round_


async def run_when_due(
    store: Store, round_: Round, wake: str, what: str, quiet: float = QUIET_SECONDS
) -> None:
    """Rounds until cancelled: one at once, then one at each wake-up of `wake` or when
    the last round said the next is due (`quiet` at the longest); a failed round is
    logged and tried again in a second."""
    with store.bus.subscribe(wake) as woken:
        while True:
            woken.clear()  # before the round: a commit during it wakes the next one
            try:
                wait = seconds_until(await round_(), utcnow(), quiet)
            except Exception:  # a failed round must not end the loop
                log.exception("background job %s failed", what)
                wait = AFTER_FAILURE_SECONDS
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await woken.wait()

"""An idle gateway leaves its database alone: the senders (Web Push, webhooks, outbound
mail) and the requests' expiry ask nothing between their first round and the next
commit that gives them work (core/store/due_jobs.py), where each asked every second.

The test's clock is the gateway's own: the presence sweep, set to run every second
here, is a periodic job that stays; across three of its rounds each of the others
would have looked about three times. The test waits for those rounds, never for a
time (docs/testing.md, "Time in tests")."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

from tests.support.gateway import running_gateway

ASKED = {  # what each job's round reads first
    "web push": "FROM push_jobs",
    "outbound": "FROM outbound_jobs",
    "webhooks": "FROM webhook_deliveries",
    "expiry": "mails.permission_state",
}
WATCHED = {**ASKED, "sweep": "FROM agents"}  # the presence sweep: every heartbeat / 3
SWEEPS = 3
HANG_BOUND_SECONDS = 120  # a bound on a hang: the rounds come every second


async def _until(done: Callable[[], bool]) -> None:
    async with asyncio.timeout(HANG_BOUND_SECONDS):
        while not done():
            await asyncio.sleep(0.05)


async def test_an_idle_gateway_asks_its_database_nothing_for_its_jobs(
    database_url: str, tmp_path: Path
) -> None:
    settings = {
        "smarthost": "127.0.0.1:9",  # so that the outbound job runs
        "smarthost_tls": "none",
        "heartbeat_seconds": 3.0,  # a presence sweep a second: the test's clock
    }
    async with running_gateway(database_url, tmp_path, **settings):
        asked: Counter[str] = Counter()

        def count(*args: Any) -> None:
            statement: str = args[2]
            asked.update(job for job, text in WATCHED.items() if text in statement)

        event.listen(Engine, "before_cursor_execute", count)  # both stores' engines
        try:
            await _until(lambda: set(ASKED) <= set(asked))  # every first round
            asked.clear()
            await _until(lambda: asked["sweep"] >= 1)  # a sweep after them
            asked.clear()
            await _until(lambda: asked["sweep"] >= SWEEPS)
        finally:
            event.remove(Engine, "before_cursor_execute", count)
        del asked["sweep"]
        assert asked == Counter(), asked

"""An idle gateway leaves its database alone: the senders (Web Push, webhooks, outbound
mail) and the requests' expiry ask nothing between their first round and the next
commit that gives them work (core/store/due_jobs.py), where each asked every second.

The statements are counted after each job's first round, for a few seconds: a busy
machine could only make fewer rounds, so the check cannot fail for slowness."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

from tests.support.gateway import running_gateway

QUIET_SPELL_SECONDS = 3.0  # each job looked three times in it before
ASKED = {  # what each job's round reads first
    "web push": "FROM push_jobs",
    "outbound": "FROM outbound_jobs",
    "webhooks": "FROM webhook_deliveries",
    "expiry": "mails.permission_state",
}
FIRST_ROUNDS_BOUND_SECONDS = 60  # a bound on a hang: the first rounds come at start


async def test_an_idle_gateway_asks_its_database_nothing_for_its_jobs(
    database_url: str, tmp_path: Path
) -> None:
    smarthost = {"smarthost": "127.0.0.1:9", "smarthost_tls": "none"}  # the outbound job runs
    async with running_gateway(database_url, tmp_path, **smarthost):
        asked: Counter[str] = Counter()

        def count(*args: Any) -> None:
            statement: str = args[2]
            asked.update(job for job, text in ASKED.items() if text in statement)

        event.listen(Engine, "before_cursor_execute", count)  # both stores' engines
        try:
            async with asyncio.timeout(FIRST_ROUNDS_BOUND_SECONDS):
                while set(asked) != set(ASKED):
                    await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # each first round's last read done
            asked.clear()
            await asyncio.sleep(QUIET_SPELL_SECONDS)
        finally:
            event.remove(Engine, "before_cursor_execute", count)
        assert asked == Counter(), asked

"""`inbox.py --rows`: the list endpoints through the application in process (ASGI), CPU
per request, beside a one-mail lookup through the same application in the same run.

One reader gets every mail of a fresh store of `size` mails (10,000 and 100,000 by
default). Each case is one request through `httpx.ASGITransport` into the app the
gateway serves (api/app.py: middleware, authentication by user key, routing,
serialisation and compression included), timed with `time.process_time()`: the CPU
of this process, so on SQLite the database's work too, on PostgreSQL only the
gateway's side (the server's is its own process). The client's share (httpx
building the request and reading the answer) is in every case, the baseline too;
`GET /me` shows that floor (a request, its key checked, a small answer).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _db import console, fresh_store, settle
from rich.table import Table
from sqlalchemy import select

from api.app import create_app
from core.identity.accounts import create_user
from core.identity.keys import issue_key
from core.settings import Settings
from core.store.engine import Store
from core.store.models import Mail
from tests.support.seeding import InboxFill, fill_inbox

READER = "reader"
GOAL_MS = 2.0
ROWS_CASE = "GET /me/mail/inbox/rows?limit=50"
Request = Callable[[], Awaitable[httpx.Response]]


@dataclass
class CpuTiming:
    label: str
    seconds: list[float] = field(default_factory=list)
    size: int = 0  # bytes of the answer as sent (compressed when the app compresses it)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000


async def _reader_key(store: Store) -> str:
    await create_user(store, READER, "bench-password")
    issued = await issue_key(store, kind="user", lifecycle="permanent", owner=READER)
    assert issued.key is not None
    return issued.key


async def _measure(cases: dict[str, Request], runs: int, warmup: int) -> list[CpuTiming]:
    timings = [CpuTiming(label) for label in cases]
    for _ in range(warmup):
        for request in cases.values():
            (await request()).raise_for_status()
    for _ in range(runs):
        for timing, request in zip(timings, cases.values(), strict=True):
            started = time.process_time()
            answer = await request()
            timing.seconds.append(time.process_time() - started)
            timing.size = len(answer.content)
    return timings


async def _one_size(database_url: str | None, mails: int, runs: int, warmup: int) -> Table:
    async with fresh_store(database_url) as (store, described):
        key = await _reader_key(store)
        plan = InboxFill(
            mails=mails,
            recipient=lambda _seq, _rng: READER,
            conversations=max(10, mails // 100),
            archived_share=0.0,
        )
        await fill_inbox(store, plan)
        await settle(store)
        some = await store.read(lambda s: s.scalar(select(Mail.id).where(Mail.seq == mails // 2)))
        data_dir = Path(tempfile.mkdtemp(prefix="agentmail-bench-rows-"))
        app = create_app(Settings(data_dir=data_dir), store)
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {key}", "Accept-Encoding": "br, gzip"}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://bench", headers=headers
        ) as client:
            base = "/api/v1/me/mail"
            cases: dict[str, Request] = {
                "baseline: GET /me/mail/{id}": lambda: client.get(f"{base}/{some}"),
                "floor: GET /me (authenticated, no mail)": lambda: client.get("/api/v1/me"),
                ROWS_CASE: lambda: client.get(f"{base}/inbox/rows", params={"limit": 50}),
                "GET /me/mail/inbox?limit=50": lambda: client.get(
                    f"{base}/inbox", params={"limit": 50}
                ),
                "GET /me/mail/inbox/rows?status=unread&limit=50": lambda: client.get(
                    f"{base}/inbox/rows", params={"limit": 50, "status": "unread"}
                ),
            }
            timings = await _measure(cases, runs, warmup)
    base_ms = timings[0].median_ms
    table = Table(
        title=f"list endpoints, in-process ASGI, {mails:,} mails to one reader — {described}"
    )
    for column in ("request", "CPU ms p50", "CPU ms min", "x baseline", "bytes"):
        table.add_column(column, justify="left" if column == "request" else "right")
    for t in timings:
        table.add_row(
            t.label,
            f"{t.median_ms:.2f}",
            f"{min(t.seconds) * 1000:.2f}",
            f"{t.median_ms / base_ms:.1f}" if base_ms else "n/a",
            f"{t.size:,}",
        )
    rows = next(t for t in timings if t.label == ROWS_CASE)
    verdict = "[green]met[/]" if rows.median_ms <= GOAL_MS else "[red]not met[/]"
    table.caption = (
        f"goal ≤ {GOAL_MS:.0f} ms CPU for the rows page: {rows.median_ms:.2f} ms, {verdict}"
    )
    return table


async def rows_bench(database_url: str | None, sizes: list[int], runs: int, warmup: int) -> None:
    for mails in sizes:
        console.print(f"filling {mails:,} mails for one reader")
        console.print(await _one_size(database_url, mails, runs, warmup))

"""What the in-process benchmarks (`tree.py`, `inbox.py`) share: a fresh store, bulk rows, timing.

They call `core` directly on a real `Store` (no HTTP), so their figures are the
database work and the Python around it: the reader-thread hand-off on SQLite,
`run_sync` on asyncpg, building the response views. Cases are timed round-robin
so a baseline and the queries it is compared with see the same machine.
"""

from __future__ import annotations

import os
import platform
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _children import create_pg_database, drop_pg_database
from rich.console import Console
from rich.table import Table
from sqlalchemy import Engine, Executable, event, select
from sqlalchemy.orm import Session

from core.store.engine import Store, database_url
from core.store.migrate import migrate
from core.store.models import Mail

# The store's bulk path, shared with the browser suite's big inbox (re-exported).
from tests.support.seeding import bulk_insert as bulk_insert

console = Console(highlight=False, width=120)


@asynccontextmanager
async def fresh_store(url: str | None, keep: bool = False) -> AsyncIterator[tuple[Store, str]]:
    """A migrated, empty store: a temp SQLite file, or a new database on `url`'s server."""
    tmp = Path(tempfile.mkdtemp(prefix="agentmail-bench-"))
    if url:
        fresh, version = await create_pg_database(url)
        described = f"PostgreSQL {version} (fresh database {fresh.rsplit('/', 1)[1]})"
    else:
        fresh, described = "", f"SQLite {sqlite3.sqlite_version} ({tmp / 'agentmail.db'})"
    store = Store(database_url(fresh, tmp / "agentmail.db"))
    try:
        await migrate(store)
        yield store, described
    finally:
        await store.close()
        if url and not keep:
            await drop_pg_database(url, fresh)
        if keep:
            console.print(f"kept {tmp}" + (f" and {fresh}" if url else ""))
        else:
            shutil.rmtree(tmp, ignore_errors=True)


async def settle(store: Store) -> None:
    """PostgreSQL after a bulk load: what autovacuum would do soon (statistics, and the
    visibility map that index-only scans need). SQLite is left as the gateway leaves
    it: it never runs ANALYZE, so its planner works without statistics there too."""
    if store.dialect == "postgresql":
        async with store.engine.connect() as connection:
            autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
            await autocommit.exec_driver_sql("VACUUM ANALYZE")


def engines(store: Store) -> list[Engine]:
    if store.dialect == "sqlite":
        return store.engines
    return [store.engine.sync_engine]


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """The SQL statements run meanwhile, transaction control left out."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.split()[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    for engine in engines(store):
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        for engine in engines(store):
            event.remove(engine, "before_cursor_execute", record)


@dataclass
class Timing:
    label: str
    seconds: list[float] = field(default_factory=list)
    statements: int = 0
    note: str = ""

    def ms(self, q: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


Case = Callable[[], Awaitable[Any]]


async def measure(store: Store, cases: dict[str, Case], runs: int, warmup: int) -> list[Timing]:
    """Each case `runs` times, round-robin after a warm-up; statements counted on one extra run."""
    timings = [Timing(label) for label in cases]
    for _ in range(warmup):
        for case in cases.values():
            await case()
    for timing, case in zip(timings, cases.values(), strict=True):
        with statements(store) as seen:
            result = await case()
        timing.statements = len(seen)
        timing.note = str(result) if isinstance(result, str) else ""
    for _ in range(runs):
        for timing, case in zip(timings, cases.values(), strict=True):
            started = time.perf_counter()
            await case()
            timing.seconds.append(time.perf_counter() - started)
    return timings


def timing_table(title: str, timings: list[Timing], baseline: str) -> Table:
    base = statistics.median(next(t for t in timings if t.label == baseline).seconds)
    table = Table(title=title)
    for column in ("case", "p50 ms", "p95 ms", "min ms", "x baseline", "statements", "what"):
        table.add_column(column, justify="left" if column in ("case", "what") else "right")
    for t in timings:
        ratio = statistics.median(t.seconds) / base if base else float("nan")
        table.add_row(
            t.label,
            f"{t.ms(0.5):.2f}",
            f"{t.ms(0.95):.2f}",
            f"{t.ms(0):.2f}",
            f"{ratio:.1f}",
            str(t.statements),
            t.note,
        )
    return table


def baseline_case(store: Store, mail_id: str) -> Any:
    """The baseline of the tree and inbox benchmarks: one mail by its indexed id."""
    query = select(Mail).where(Mail.id == mail_id)

    async def case() -> str:
        mail = await store.read(lambda s: s.scalars(query).one())
        return f"SELECT … WHERE id = ? ({mail.subject})"

    return case


async def query_plan(store: Store, statement: Executable, params: dict[str, Any]) -> list[str]:
    """SQLite's EXPLAIN QUERY PLAN or PostgreSQL's EXPLAIN of `statement` with `params`."""

    def run(session: Session) -> list[str]:
        connection = session.connection()
        compiled = statement.compile(dialect=connection.dialect)
        values = compiled.construct_params(params)
        positional = tuple(values[name] for name in compiled.positiontup or ())
        if store.dialect == "sqlite":
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", positional)
            return [f"{'  ' * depth(row)}{row[3]}" for row in rows.all()]
        rows = connection.exec_driver_sql(f"EXPLAIN {compiled}", positional)
        return [row[0] for row in rows.all()]

    parents: dict[int, int] = {}

    def depth(row: Any) -> int:
        parents[row[0]] = parents.get(row[1], -1) + 1
        return parents[row[0]]

    return await store.read(run)


def facts(database: str) -> list[str]:
    return [
        f"machine   {os.cpu_count()} CPUs, {platform.platform()}",
        f"python    {platform.python_implementation()} {platform.python_version()}",
        f"database  {database}",
    ]


def elapsed(started: float) -> str:
    return f"{time.perf_counter() - started:.1f} s"

"""A transaction whose caller is cancelled still ends cleanly on its connection.

An SSE client that disconnects cancels its stream (sse-starlette's anyio task
group), often while the stream reads its events. On PostgreSQL that cancellation
used to cut the read inside asyncpg wherever it was: the connection was thrown
away, with an asyncio "exception was never retrieved" error or SQLAlchemy's
"Exception closing connection" in the log, one lost connection per disconnect
(seen with three replicas, tests/integration/test_replicas.py). The store now
lets the transaction finish in a task of its own, which hands the connection
back to the pool (core/store/engine.py, `_to_the_end`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.engine import database_url as store_url
from core.store.models import Event, Meta

CANCELS = 100


async def _cancelled_after(seconds: float, transaction: object) -> None:
    """Start `transaction` and cancel it as sse-starlette ends a stream whose client left."""
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: transaction)
        await anyio.sleep(seconds)
        group.cancel_scope.cancel()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_cancelled_reads_and_writes_end_cleanly_and_keep_their_connections(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(store_url(database_url, Path()))
    try:
        query = select(Event.id).where(Event.recipient == "nobody", Event.id > 0).limit(500)

        def write(session: Session) -> None:
            session.execute(text("SELECT pg_sleep(0.2)"))
            session.add(Meta(key="written", value="once"))

        with caplog.at_level(logging.WARNING):
            # Cut at every stage: checkout, BEGIN, the query, COMMIT.
            for n in range(CANCELS):
                await _cancelled_after(n * 0.00005, store.read(lambda s: s.execute(query).all()))
            await _cancelled_after(0.05, store.write(write))
            await store.settle()
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
        pool = store.engine.pool
        assert pool.checkedout() == 0 and pool.checkedin() >= 1  # type: ignore[attr-defined]
        # The write whose caller gave up committed (as any write whose answer was lost
        # may have): never half done, and its wake-ups were sent.
        count = select(func.count()).select_from(Meta).where(Meta.key == "written")
        assert await store.read(lambda s: s.scalar(count)) == 1
    finally:
        await store.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_transaction_that_never_ends_is_cut_at_close_and_named(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A write whose caller left, stuck behind a lock another connection keeps, does not
    hold the store's close (and so the gateway's stop) for ever."""
    store = Store(store_url(database_url, Path()))
    holder = Store(store_url(database_url, Path()))
    release = anyio.Event()
    locked = anyio.Event()

    async def hold_the_lock() -> None:
        async with holder.engine.begin() as connection:
            await connection.execute(text("LOCK TABLE meta IN ACCESS EXCLUSIVE MODE"))
            locked.set()
            await release.wait()

    def write(session: Session) -> None:
        session.add(Meta(key="stuck", value="behind the lock"))

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(hold_the_lock)
            await locked.wait()
            await _cancelled_after(0.2, store.write(write))
            with caplog.at_level(logging.WARNING):
                await store.settle(patience=0.5)
            release.set()
        assert "1 transaction(s) still running 0.5 s into the close are cancelled" in caplog.text
        stuck = select(func.count()).select_from(Meta).where(Meta.key == "stuck")
        assert await store.read(lambda s: s.scalar(stuck)) == 0  # rolled back, not half done
    finally:
        await store.close()
        await holder.close()

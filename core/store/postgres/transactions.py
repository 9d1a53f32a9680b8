"""PostgreSQL's transactions: each in a greenlet on asyncpg, run again after a deadlock.

The same synchronous transaction function runs in a greenlet (SQLAlchemy's
asyncio bridge) on asyncpg. A write that PostgreSQL aborts to break a deadlock
or a serialization conflict runs again (a few times, with jitter), so the client
never sees it. Transactions lock rows in one global order (conversation, then
mail, then IMAP folders by owner and key) so deadlocks stay rare. There is no
group commit of ours: writers run concurrently on their own connections and the
server flushes the WAL of commits that arrive together with one fsync (though
the events lock serializes the commits of writes that emit events).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import Session, sessionmaker

from core.store.committed_events import Committed
from core.store.credentials import watch_credential_writes
from core.store.port import register_backend
from core.store.postgres.backend import PostgresBackend
from core.store.postgres.deferred_statements import watch_tails
from core.store.sqlalchemy_compat import greenlet_spawn

T = TypeVar("T")
WRITE_ATTEMPTS = 5
_RETRY_BASE_SECONDS = 0.01  # jittered: up to 20 ms, then 40 ms, ...
_RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock, serialization failure
_log = logging.getLogger(__name__)


class PostgresTransactions:
    """The asyncpg engine, its write sessions and its autocommit read sessions."""

    # Cut inside asyncpg, a transaction throws its connection away: reads too run
    # to their end in a task of their own (the Store's `_to_the_end`).
    reads_in_own_task = True

    def __init__(self, url: str, connections: int) -> None:
        kept = max(1, connections // 3)
        self.engine: AsyncEngine = create_async_engine(
            url, pool_size=kept, max_overflow=max(0, connections - kept)
        )
        sync_engine = self.engine.sync_engine
        self._writes = sessionmaker(sync_engine, expire_on_commit=False)
        # Reads run without BEGIN and COMMIT (see `read`).
        self._reads = sessionmaker(
            sync_engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False
        )
        watch_credential_writes(sync_engine)
        watch_tails(sync_engine)
        register_backend(type(sync_engine.dialect), PostgresBackend())

    @property
    def engines(self) -> list[Engine]:
        return [self.engine.sync_engine]

    async def read(self, fn: Callable[[Session], T]) -> T:
        """A read runs in autocommit: under READ COMMITTED (the default, kept) every
        statement takes its own snapshot whether or not a transaction wraps it, so
        BEGIN and COMMIT would buy a read nothing but two round trips."""
        return await greenlet_spawn(_run_in_session, self._reads, fn)

    async def write(
        self,
        run: Callable[[Session], tuple[T, Committed]],
        told: Callable[[Committed], None],
        retried: Callable[[], None],
    ) -> T:
        """One transaction, run again when PostgreSQL aborted it to break a deadlock or
        a serialization conflict (SQLSTATE 40P01, 40001): the other side commits, so a
        new attempt succeeds. Every attempt runs `run` from the start in a new session;
        `told` runs once it committed."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                outcome: tuple[T, Committed] = await greenlet_spawn(
                    _run_in_session, self._writes, run
                )
            except DBAPIError as error:
                if attempt == WRITE_ATTEMPTS or not _retryable(error):
                    raise
                retried()
                _log.warning("write attempt %d ended by %s; running it again", attempt, error.orig)
                await asyncio.sleep(random.uniform(0, _RETRY_BASE_SECONDS * 2**attempt))
                continue
            told(outcome[1])
            return outcome[0]
        raise AssertionError("unreachable")

    async def run_on_connection(self, fn: Callable[[Connection], None]) -> None:
        async with self.engine.begin() as connection:
            await connection.run_sync(fn)

    async def close(self) -> None:
        await self.engine.dispose()


def _run_in_session(sessions: sessionmaker[Session], fn: Callable[..., T], *args: Any) -> T:
    """A whole PostgreSQL transaction in one greenlet (`greenlet_spawn`): a plain
    `Session` on the asyncpg engine's sync facade, as `AsyncSession` runs inside, but
    without its wrappers — `AsyncSession` spawns a greenlet to begin, one to run,
    one to commit and one to close, each a task step on the event loop."""
    with sessions() as session, session.begin():
        return fn(session, *args)


def _retryable(error: DBAPIError) -> bool:
    return getattr(error.orig, "sqlstate", None) in _RETRYABLE_SQLSTATES

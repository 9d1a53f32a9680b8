"""The store: engines, transactions and the after-commit hook of the event bus.

Domain code writes a transaction as a plain function of a synchronous SQLAlchemy
`Session` and hands it to `await store.write(fn)` or `await store.read(fn)`; the
store runs it without blocking the event loop:

* SQLite (the default): the whole transaction runs in a thread — writes in one
  dedicated writer thread (`BEGIN IMMEDIATE`, so writers queue instead of failing
  with "database is locked"), reads in a small pool of reader threads with WAL
  snapshots. One thread hand-off per transaction, not one per statement; each of
  these threads keeps its connection (core/store/sqlite/thread_connections.py).
  Writes queued together share one COMMIT, each in its own SAVEPOINT
  (core/store/sqlite/group_commit.py), so concurrent writers share one fsync.
* PostgreSQL: the same function runs in a greenlet (SQLAlchemy's asyncio bridge) on asyncpg;
  a write that PostgreSQL aborts to break a deadlock or a serialization conflict
  runs again (a few times, with jitter), so the client never sees it. Transactions
  lock rows in one global order (conversation, then mail, then IMAP folders by
  owner and key) so deadlocks stay rare.

A transaction whose caller is cancelled (an SSE client that went away, an IMAP
connection closed mid-command) still runs to its end in a task of its own. Cut
inside asyncpg, a PostgreSQL one threw its connection away (and, under an anyio
cancel scope, logged an error while closing it): one connection lost per
disconnect; a write's wake-ups were lost with it.

Events are written in the transaction of the change they report, as its last
statements (core/store/committed_events.py); SQLite's engines are in core/store/sqlite/engines.py.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import Session, sessionmaker

from core.errors import DomainError
from core.store import metrics
from core.store.bus import EventBus
from core.store.committed_events import (
    EVENTS_LOCK_KEY,
    NOTIFY_CHANNEL,
    WAKE_ALL,
    Committed,
    flush_events,
    notify_payload,
    pending_events,
    wake_after_commit,
    with_events,
)
from core.store.credentials import CREDENTIALS_CHANGED, CredentialCache, watch_credential_writes
from core.store.disk_full import is_disk_full, storage_full
from core.store.port import register_backend
from core.store.postgres.backend import PostgresBackend
from core.store.postgres.deferred_statements import watch_tails
from core.store.sqlalchemy_compat import check as check_sqlalchemy
from core.store.sqlalchemy_compat import greenlet_spawn
from core.store.sqlite.backend import SqliteBackend
from core.store.sqlite.engines import sqlite_engine
from core.store.sqlite.group_commit import MAX_GROUP, GroupCommitWriter
from core.store.sqlite.thread_connections import HeldConnections

# Re-exported: the store's users import these from here.
__all__ = [
    "EVENTS_LOCK_KEY",
    "NOTIFY_CHANNEL",
    "WAKE_ALL",
    "Committed",
    "Store",
    "Transaction",
    "database_url",
    "flush_events",
    "notify_payload",
    "pending_events",
    "wake_after_commit",
]

T = TypeVar("T")
Transaction = Callable[[Session], T]

SQLITE_READERS = 4
WRITE_ATTEMPTS = 5
_RETRY_BASE_SECONDS = 0.01  # jittered: up to 20 ms, then 40 ms, ...
_RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock, serialization failure
_log = logging.getLogger(__name__)


def database_url(url: str, sqlite_path: Path) -> str:
    """Normalise a user-facing DATABASE_URL; empty means SQLite at `sqlite_path`."""
    if not url:
        return f"sqlite:///{sqlite_path}"
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    if backend == "sqlite":
        return parsed.set(drivername="sqlite").render_as_string(hide_password=False)
    raise ValueError(
        f"unsupported DATABASE_URL {parsed.drivername!r}: use postgresql:// or sqlite://"
    )


class Store:
    """Owns the engines; runs read and write transactions off the event loop."""

    def __init__(
        self,
        url: str,
        bus: EventBus | None = None,
        *,
        group_limit: int = MAX_GROUP,
        credential_ttl: float = 0.0,
        connections: int = 30,
    ) -> None:
        """`group_limit`: SQLite writes per COMMIT at most (1 turns group commit off);
        `credential_ttl`: seconds an authenticated key or password is remembered
        (core/store/credentials.py; 0, the default, remembers nothing);
        `connections`: PostgreSQL connections at most, a third of them kept open."""
        check_sqlalchemy()
        self.url = url
        self.bus = bus or EventBus()
        self.credentials = CredentialCache(credential_ttl)
        self.dialect = make_url(url).get_backend_name()
        # The first line of this store's NOTIFY payloads: its own come back to its
        # listener, and its streams were told at commit (core/store/replicas.py).
        # Names never hold `@`.
        self.token = "@" + uuid.uuid4().hex
        self._async_engine: AsyncEngine | None = None
        self._running: set[asyncio.Task[Any]] = set()
        if self.dialect == "sqlite":
            self._write_engine = sqlite_engine(url, "BEGIN IMMEDIATE", pool_size=1)
            self._read_engine = sqlite_engine(url, "BEGIN", pool_size=SQLITE_READERS)
            register_backend(type(self._write_engine.dialect), SqliteBackend())
            self._held_reads = HeldConnections(self._read_engine)  # one per reader thread
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="agentmail-sqlite-writer")
            self._readers = ThreadPoolExecutor(
                SQLITE_READERS, thread_name_prefix="agentmail-sqlite-reader"
            )
            self._group_writer = GroupCommitWriter(self._write_engine, self._writer, group_limit)
            watch_credential_writes(self._write_engine)
        else:
            kept = max(1, connections // 3)
            self._async_engine = create_async_engine(
                url, pool_size=kept, max_overflow=max(0, connections - kept)
            )
            self._pg_writes = sessionmaker(self._async_engine.sync_engine, expire_on_commit=False)
            # Reads run without BEGIN and COMMIT (see `_read_postgres`).
            self._pg_reads = sessionmaker(
                self._async_engine.sync_engine.execution_options(isolation_level="AUTOCOMMIT"),
                expire_on_commit=False,
            )
            watch_credential_writes(self._async_engine.sync_engine)
            watch_tails(self._async_engine.sync_engine)
            register_backend(type(self._async_engine.sync_engine.dialect), PostgresBackend())

    @property
    def engine(self) -> AsyncEngine:
        """The asyncpg engine (PostgreSQL only): LISTEN, migrations."""
        if self._async_engine is None:
            raise RuntimeError("the SQLite store has no async engine")
        return self._async_engine

    async def read(self, fn: Transaction[T]) -> T:
        """Run `fn` in a read transaction: one WAL snapshot on SQLite; on PostgreSQL a
        snapshot per statement (READ COMMITTED, as it always was there)."""
        if self._async_engine is None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._readers, self._read_sync, fn)
        return await self._to_the_end(self._read_postgres(fn))

    async def _read_postgres(self, fn: Transaction[T]) -> T:
        """A read runs in autocommit: under READ COMMITTED (the default, kept) every
        statement takes its own snapshot whether or not a transaction wraps it, so
        BEGIN and COMMIT would buy a read nothing but two round trips
        (docs/performance.md)."""
        return await greenlet_spawn(_run_in_session, self._pg_reads, fn)

    async def _to_the_end(self, transaction: Coroutine[Any, Any, T]) -> T:
        """Run a transaction in its own task, so that cancelling the caller stops the
        wait, not the transaction: it commits or rolls back and returns its connection
        to the pool (a write the caller gave up on may have committed, as any write
        whose answer was lost)."""
        task = asyncio.create_task(transaction)
        self._running.add(task)
        task.add_done_callback(self._ended)
        return await asyncio.shield(task)

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that was cancelled never reads it

    async def settle(self) -> None:
        """Wait for the transactions whose callers stopped waiting (before closing)."""
        while self._running:
            await asyncio.wait(set(self._running))

    async def write(self, fn: Transaction[T]) -> T:
        """Run `fn` in a write transaction; commit, then wake the recipients of its events.

        Both run to the end even when the caller is cancelled (`_to_the_end`): a
        committed change always wakes the streams of the people it concerns."""
        return await self._to_the_end(self._write_and_wake(fn))

    async def _write_and_wake(self, fn: Transaction[T]) -> T:
        try:
            result, committed = await self._committed(fn)
        except DomainError:  # the transaction's own refusal
            raise
        except Exception as error:
            if is_disk_full(error):  # rolled back whole: refused, not an internal error
                raise storage_full() from error
            raise
        if self._async_engine is not None:  # SQLite's writer told them already
            self._tell(committed)
        return result

    def _tell(self, committed: Committed) -> None:
        """After COMMIT, on the loop: drop the remembered credentials if they changed,
        push the events to the streams of this process and wake their recipients.
        SQLite's writer calls it in the loop callback that ends the write (the first
        turn after its COMMIT: the streams wake a turn later, not three); PostgreSQL's
        writes commit on the loop, and the write's own task calls it."""
        recipients = committed.recipients
        if CREDENTIALS_CHANGED in recipients:
            self.credentials.drop_all()  # after COMMIT: the next read sees the change
            recipients = recipients - {CREDENTIALS_CHANGED}
        if recipients:
            self.bus.push(committed.events, recipients)

    async def _committed(self, fn: Transaction[T]) -> tuple[T, Committed]:
        if self._async_engine is None:
            token = self.token
            try:
                return await self._group_writer.submit(
                    lambda session: with_events(session, fn, token), self._tell
                )
            except DBAPIError:
                metrics.DATABASE_ERRORS.inc()
                raise
        # No group commit of ours on PostgreSQL: writers run concurrently on their
        # own connections and the server flushes the WAL of commits that arrive
        # together with one fsync (though the events lock below serializes the
        # commits of writes that emit events).
        return await self._write_postgres(fn)

    async def _write_postgres(self, fn: Transaction[T]) -> tuple[T, Committed]:
        """One transaction, run again when PostgreSQL aborted it to break a deadlock or
        a serialization conflict (SQLSTATE 40P01, 40001): the other side commits, so a
        new attempt succeeds. Every attempt runs `fn` from the start in a new session."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                return await greenlet_spawn(
                    _run_in_session, self._pg_writes, with_events, fn, self.token
                )
            except DBAPIError as error:
                if attempt == WRITE_ATTEMPTS or not _retryable(error):
                    metrics.DATABASE_ERRORS.inc()
                    raise
                metrics.DATABASE_RETRIES.inc()
                _log.warning("write attempt %d ended by %s; running it again", attempt, error.orig)
                await asyncio.sleep(random.uniform(0, _RETRY_BASE_SECONDS * 2**attempt))
        raise AssertionError("unreachable")

    def _read_sync(self, fn: Transaction[T]) -> T:
        return self._held_reads.read(fn)

    async def run_on_connection(self, fn: Callable[[Connection], None]) -> None:
        """Run `fn` on a connection in a transaction (schema migrations)."""
        if self._async_engine is None:

            def run() -> None:
                # The writer's held connection: the pool has no second one to give.
                held = self._group_writer.connections
                connection = held.connection()
                try:
                    with connection.begin():
                        fn(connection)
                finally:
                    held.release_unless_clean()

            await asyncio.get_running_loop().run_in_executor(self._writer, run)
        else:
            async with self._async_engine.begin() as connection:
                await connection.run_sync(fn)

    async def close(self) -> None:
        await self.settle()
        if self._async_engine is None:
            self._writer.shutdown(wait=True)
            self._readers.shutdown(wait=True)
            self._group_writer.connections.close()
            self._held_reads.close()
            self._write_engine.dispose()
            self._read_engine.dispose()
        else:
            await self._async_engine.dispose()


def _run_in_session(sessions: sessionmaker[Session], fn: Callable[..., T], *args: Any) -> T:
    """A whole PostgreSQL transaction in one greenlet (`greenlet_spawn`): a plain
    `Session` on the asyncpg engine's sync facade, as `AsyncSession` runs inside, but
    without its wrappers — `AsyncSession` spawned a greenlet to begin, one to run,
    one to commit and one to close, each a task step on the event loop."""
    with sessions() as session, session.begin():
        return fn(session, *args)


def _retryable(error: DBAPIError) -> bool:
    return getattr(error.orig, "sqlstate", None) in _RETRYABLE_SQLSTATES

"""The store: its backend's transactions, and the after-commit hook of the event bus.

Domain code writes a transaction as a plain function of a synchronous SQLAlchemy
`Session` and hands it to `await store.write(fn)` or `await store.read(fn)`; the
store runs it without blocking the event loop, the way of its database:
SQLite's in threads with group commit (core/store/sqlite/transactions.py),
PostgreSQL's in a greenlet on asyncpg, run again after a deadlock
(core/store/postgres/transactions.py).

A transaction whose caller is cancelled (an SSE client that went away, an IMAP
connection closed mid-command) still runs to its end in a task of its own. Cut
inside asyncpg, a PostgreSQL one would throw its connection away (and, under an
anyio cancel scope, log an error while closing it), and a write's wake-ups
would be lost with it.

Events are written in the transaction of the change they report, as its last
statements (core/store/committed_events.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Session

from core import metrics
from core.errors import DomainError
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
from core.store.credentials import CREDENTIALS_CHANGED, CredentialCache
from core.store.disk_full import is_disk_full, storage_full
from core.store.postgres.transactions import PostgresTransactions
from core.store.sqlalchemy_compat import check as check_sqlalchemy
from core.store.sqlite.group_commit import MAX_GROUP
from core.store.sqlite.transactions import SqliteTransactions
from core.tasks import STOP_PATIENCE_SECONDS, cancel_and_wait

log = logging.getLogger(__name__)

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
    """Owns its backend's transactions; runs them off the event loop, tells after COMMIT."""

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
        self._running: set[asyncio.Task[Any]] = set()
        self._transactions: SqliteTransactions | PostgresTransactions
        if self.dialect == "sqlite":
            self._transactions = SqliteTransactions(url, group_limit)
        else:
            self._transactions = PostgresTransactions(url, connections)

    @property
    def engine(self) -> AsyncEngine:
        """The asyncpg engine (PostgreSQL only): LISTEN, migrations."""
        if not isinstance(self._transactions, PostgresTransactions):
            raise RuntimeError("the SQLite store has no async engine")
        return self._transactions.engine

    @property
    def engines(self) -> list[Engine]:
        """The synchronous engines statements run on (listeners: tests, benches)."""
        return self._transactions.engines

    async def read(self, fn: Transaction[T]) -> T:
        """Run `fn` in a read transaction: one WAL snapshot on SQLite; on PostgreSQL a
        snapshot per statement (READ COMMITTED)."""
        if self._transactions.reads_in_own_task:
            return await self._to_the_end(self._transactions.read(fn))
        return await self._transactions.read(fn)

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

    async def settle(self, patience: float = STOP_PATIENCE_SECONDS) -> None:
        """Wait for the transactions whose callers stopped waiting (before closing); one
        still running after `patience` seconds (waiting for a lock or a connection that
        does not come) is cancelled and named in the log: a stop never hangs."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while self._running and loop.time() < deadline:
            await asyncio.wait(set(self._running), timeout=deadline - loop.time())
        if self._running:
            log.warning(
                "%d transaction(s) still running %g s into the close are cancelled",
                len(self._running),
                patience,
            )
            await cancel_and_wait(set(self._running), "transactions at close")

    async def write(self, fn: Transaction[T]) -> T:
        """Run `fn` in a write transaction; commit, then wake the recipients of its events.

        Both run to the end even when the caller is cancelled (`_to_the_end`): a
        committed change always wakes the streams of the people it concerns."""
        return await self._to_the_end(self._write_and_wake(fn))

    async def _write_and_wake(self, fn: Transaction[T]) -> T:
        token = self.token
        try:
            return await self._transactions.write(
                lambda session: with_events(session, fn, token),
                self._tell,
                metrics.DATABASE_RETRIES.inc,
            )
        except DomainError:  # the transaction's own refusal
            raise
        except Exception as error:
            if isinstance(error, DBAPIError):
                metrics.DATABASE_ERRORS.inc()
            if is_disk_full(error):  # rolled back whole: refused, not an internal error
                raise storage_full() from error
            raise

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

    async def run_on_connection(self, fn: Callable[[Connection], None]) -> None:
        """Run `fn` on a connection in a transaction (schema migrations)."""
        await self._transactions.run_on_connection(fn)

    async def close(self) -> None:
        await self.settle()
        await self._transactions.close()

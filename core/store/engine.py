"""The store: engines, transactions and the after-commit hook of the event bus.

Domain code writes a transaction as a plain function of a synchronous SQLAlchemy
`Session` and hands it to `await store.write(fn)` or `await store.read(fn)`; the
store runs it without blocking the event loop:

* SQLite (the default): the whole transaction runs in a thread — writes in one
  dedicated writer thread (`BEGIN IMMEDIATE`, so writers queue instead of failing
  with "database is locked"), reads in a small pool of reader threads with WAL
  snapshots. One thread hand-off per transaction, not one per statement; each of
  these threads keeps its connection (core/store/held.py). Writes queued together
  share one COMMIT, each in its own SAVEPOINT (`core/store/group_commit.py`), so
  concurrent writers share one fsync.
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
statements. On PostgreSQL those inserts run under a transaction-scoped advisory
lock, so event ids become visible in commit order: a reader that has seen id N
can never later find a committed event below N (the SSE resume relies on it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import uuid
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, bindparam, create_engine, event, insert, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.util import greenlet_spawn

from core.errors import DomainError
from core.store import metrics
from core.store.bus import EventBus, Pushed, StoredEvent
from core.store.credentials import (
    CREDENTIALS_CHANGED,
    CredentialCache,
    credentials_written,
    watch_credential_writes,
)
from core.store.full import is_disk_full, storage_full
from core.store.group_commit import MAX_GROUP, GroupCommitWriter
from core.store.held import HeldConnections
from core.store.models import Event, UTCDateTime, table_of, utcnow
from core.store.pg_tail import Tail, take_pending, watch_tails
from core.store.prepared import Prepared

T = TypeVar("T")
Transaction = Callable[[Session], T]

_EVENTS_LOCK_KEY = 0x61676D6C  # "agml": the advisory lock that orders event ids
SQLITE_READERS = 4
NOTIFY_CHANNEL = "agentmail_events"
_NOTIFY_LIMIT = 7000  # PostgreSQL refuses payloads of 8000 bytes and more
WAKE_ALL = "*"
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


def _sqlite_engine(url: str, begin: str, pool_size: int) -> Engine:
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=0,
        connect_args={"check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit survives power loss, not only a crash (WAL + NORMAL would not).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql(begin)

    _plain_savepoints(engine)
    return engine


def _plain_savepoints(engine: Engine) -> None:
    """SAVEPOINT statements sent as text: SQLAlchemy compiles a new clause for each
    (its names differ), which cost more than running it — once per grouped write
    (core/store/group_commit.py). The names are SQLAlchemy's own (`sa_savepoint_N`)."""
    dialect: Any = engine.dialect
    dialect.do_savepoint = lambda conn, name: conn.exec_driver_sql(f"SAVEPOINT {name}")
    dialect.do_release_savepoint = lambda conn, name: conn.exec_driver_sql(
        f"RELEASE SAVEPOINT {name}"
    )
    dialect.do_rollback_to_savepoint = lambda conn, name: conn.exec_driver_sql(
        f"ROLLBACK TO SAVEPOINT {name}"
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
            self._write_engine = _sqlite_engine(url, "BEGIN IMMEDIATE", pool_size=1)
            self._read_engine = _sqlite_engine(url, "BEGIN", pool_size=SQLITE_READERS)
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
        BEGIN and COMMIT bought a read nothing but two round trips (~0.5 ms of the
        gateway's CPU each time, measured in docs/performance.md)."""
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
            dialect = self.dialect
            try:
                return await self._group_writer.submit(
                    lambda session: _with_events(session, fn, dialect, self.token), self._tell
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
                    _run_in_session, self._pg_writes, _with_events, fn, self.dialect, self.token
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


@dataclass(frozen=True, slots=True)
class Committed:
    """What a write tells once committed: whom to wake, and the events it inserted
    (ids ascending) for the streams of this process (core/store/bus.py)."""

    recipients: set[str]
    events: list[Pushed] = field(default_factory=list)


def _with_events(
    session: Session, fn: Transaction[T], dialect: str, token: str
) -> tuple[T, Committed]:
    result = fn(session)
    return result, flush_events(session, dialect, token)


def pending_events(session: Session) -> list[dict[str, Any]]:
    """Events queued in this transaction; `Store.write` inserts them last."""
    queued: list[dict[str, Any]] = session.info.setdefault("agentmail_events", [])
    return queued


def wake_after_commit(session: Session, names: Iterable[str]) -> None:
    """Wake these names' streams at commit without an event row: a change that
    IMAP shows (read state, a folder's contents) but SSE has no event type for."""
    wakes: set[str] = session.info.setdefault("agentmail_wakes", set())
    wakes.update(names)


def flush_events(session: Session, dialect: str, token: str = "") -> Committed:
    """Insert the queued events (last in the transaction): whom to wake, and the
    events with the ids the database gave them."""
    queued = pending_events(session)
    wakes: set[str] = session.info.pop("agentmail_wakes", set())
    session.flush()  # the ORM's pending changes first: events stay last, and are seen below
    if credentials_written(session):
        # Rides the wake-ups: dropped here after COMMIT, and by every replica's NOTIFY.
        wakes.add(CREDENTIALS_CHANGED)
    # A write's own CTEs left for the events statement (core/store/pg_tail.py).
    pending = take_pending(session.connection()) if dialect == "postgresql" else None
    if not queued and pending is not None:  # no events statement: they go alone
        session.connection().execute(pending[0].alone(), dict(pending[1]))
        pending = None
    if not queued and not wakes:
        return Committed(set())
    recipients = wakes | {row["recipient"] for row in queued}
    now = utcnow()
    ids: list[int] = []
    if dialect == "postgresql":
        if queued:
            params = {
                "lock_key": _EVENTS_LOCK_KEY,
                "rows": json.dumps(queued),
                "now": now,
                "channel": NOTIFY_CHANNEL,
                "wake": notify_payload(recipients, token),
            }
            statement = _PG_EVENTS
            if pending is not None:
                statement = _pg_events_after(pending[0])
                params.update(pending[1])
            ids = [int(id_) for id_ in session.scalars(statement, params)]
        else:  # only wake-ups: no event rows, so no lock
            session.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": NOTIFY_CHANNEL, "payload": notify_payload(recipients, token)},
            )
    elif queued:
        rows = [{**row, "created_at": now} for row in queued]
        ids = [row[0] for row in _INSERT_EVENTS.run(session.connection(), rows)]
    events = [
        (row["recipient"], StoredEvent(id_, row["type"], row["payload"], now))
        for row, id_ in zip(queued, sorted(ids), strict=True)
    ]
    queued.clear()
    return Committed(recipients, events)


_EVENTS = table_of(Event)
# Built once; the ids come back in the order of the rows (SQLite: one multi-row INSERT).
_INSERT_EVENTS = Prepared(insert(_EVENTS).returning(_EVENTS.c.id, sort_by_parameter_order=True))


# On PostgreSQL the events lock is held from here to the end of COMMIT, so it is
# taken, the events inserted (in queue order, so their ids ascend in it) and the
# replicas notified in one round trip: every further round trip under the lock
# would serialize all writers on it for longer. NOTIFY is delivered at commit
# (core/store/replicas.py listens). The ids come back for this process's streams.
_PG_EVENTS_SQL = """
    locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(:lock_key){after}),
    inserted AS (
        INSERT INTO events (recipient, type, payload, created_at)
        SELECT queued.recipient, queued.type, queued.payload, :now
        FROM locked,
            ROWS FROM (json_to_recordset(CAST(:rows AS json))
                AS (recipient text, type text, payload json))
            WITH ORDINALITY AS queued (recipient, type, payload, n)
        ORDER BY queued.n
        RETURNING id
    ),
    notified AS MATERIALIZED (
        SELECT pg_notify(:channel, :wake) FROM (SELECT count(*) FROM inserted) AS done
    )
    SELECT inserted.id FROM inserted, notified ORDER BY inserted.id
    """
_EVENTS_NOW = bindparam("now", type_=UTCDateTime())
_PG_EVENTS = text("WITH" + _PG_EVENTS_SQL.format(after="")).bindparams(_EVENTS_NOW)


@cache
def _pg_events_after(tail: Tail) -> TextClause:
    """The events statement with a write's CTEs in front; the lock waits for their rows
    (a CTE nobody reads runs at the end of the statement, under the lock)."""
    after = f" FROM (SELECT count(*) FROM {tail.last}) AS written"
    sql = f"WITH {tail.ctes},{_PG_EVENTS_SQL.format(after=after)}"
    return text(sql).bindparams(_EVENTS_NOW, *tail.binds)


def notify_payload(recipients: set[str], token: str = "") -> str:
    """The writing store's token, then the recipient names, newline-separated (names
    never contain one); `*` when too long."""
    payload = "\n".join([token, *sorted(recipients)] if token else sorted(recipients))
    return payload if len(payload.encode()) < _NOTIFY_LIMIT else WAKE_ALL

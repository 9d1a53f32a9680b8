"""The store: engines, transactions and the after-commit hook of the event bus.

SQLite (the default) gets one writer connection, guarded by an asyncio lock and
opened with `BEGIN IMMEDIATE`, so concurrent writers queue in-process instead of
failing with "database is locked"; readers use their own pool and WAL snapshots.
PostgreSQL gets one pool for both.

Events are written in the transaction of the change they report, as its last
statements. On PostgreSQL those inserts run under a transaction-scoped advisory
lock, so event ids become visible in commit order: a reader that has seen id N
can never later find a committed event below N (the SSE resume relies on it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import event, insert, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from core.bus import EventBus
from core.models import Event, utcnow

_EVENTS_LOCK_KEY = 0x61676D6C  # "agml": the advisory lock that orders event ids


def async_url(database_url: str, sqlite_path: Path) -> str:
    """Turn a user-facing DATABASE_URL into the async driver URL SQLAlchemy needs."""
    if not database_url:
        return f"sqlite+aiosqlite:///{sqlite_path}"
    url = make_url(database_url)
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    if backend == "sqlite":
        return url.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    raise ValueError(f"unsupported DATABASE_URL {url.drivername!r}: use postgresql:// or sqlite://")


def _sqlite_engine(url: str, begin: str, pool_size: int) -> AsyncEngine:
    engine = create_async_engine(url, pool_size=pool_size, max_overflow=0)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql(begin)

    return engine


class Store:
    """Owns the engines; hands out read and write transactions."""

    def __init__(self, url: str, bus: EventBus | None = None) -> None:
        self.url = url
        self.bus = bus or EventBus()
        self.dialect = make_url(url).get_backend_name()
        if self.dialect == "sqlite":
            self._write_engine = _sqlite_engine(url, "BEGIN IMMEDIATE", pool_size=1)
            self._read_engine = _sqlite_engine(url, "BEGIN", pool_size=8)
        else:
            self._write_engine = create_async_engine(url, pool_size=10, max_overflow=20)
            self._read_engine = self._write_engine
        self._writes = async_sessionmaker(self._write_engine, expire_on_commit=False)
        self._reads = async_sessionmaker(self._read_engine, expire_on_commit=False)
        self._write_lock = asyncio.Lock() if self.dialect == "sqlite" else None

    @property
    def engine(self) -> AsyncEngine:
        return self._write_engine

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        async with self._reads() as session, session.begin():
            yield session

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A write transaction; commits on success, then wakes the recipients of its events."""
        async with (
            self._write_lock or nullcontext(),
            self._writes() as session,
            session.begin(),
        ):
            yield session
            recipients = await flush_events(session, self.dialect)
        if recipients:
            self.bus.publish(recipients)

    async def close(self) -> None:
        await self._write_engine.dispose()
        if self._read_engine is not self._write_engine:
            await self._read_engine.dispose()


def pending_events(session: AsyncSession) -> list[dict[str, Any]]:
    """Events queued in this transaction; `Store.write` inserts them last."""
    queued: list[dict[str, Any]] = session.info.setdefault("agentmail_events", [])
    return queued


async def flush_events(session: AsyncSession, dialect: str) -> set[str]:
    queued = pending_events(session)
    if not queued:
        return set()
    if dialect == "postgresql":
        await session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _EVENTS_LOCK_KEY})
    now = utcnow()
    await session.execute(insert(Event), [{**row, "created_at": now} for row in queued])
    recipients = {row["recipient"] for row in queued}
    queued.clear()
    if dialect == "postgresql":
        # Delivered at commit to every replica listening (core/replicas.py).
        await session.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {"channel": NOTIFY_CHANNEL, "payload": notify_payload(recipients)},
        )
    return recipients


NOTIFY_CHANNEL = "agentmail_events"
_NOTIFY_LIMIT = 7000  # PostgreSQL refuses payloads of 8000 bytes and more
WAKE_ALL = "*"


def notify_payload(recipients: set[str]) -> str:
    """Recipient names, newline-separated (names never contain one); `*` when too long."""
    payload = "\n".join(sorted(recipients))
    return payload if len(payload.encode()) < _NOTIFY_LIMIT else WAKE_ALL

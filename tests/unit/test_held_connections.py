"""SQLite connections kept by the store's threads (core/store/sqlite/thread_connections.py),
on a real database: each thread checks one out once, and a connection a failure left inside
a transaction goes back to the pool rolled back instead of serving the next one."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.migrate import migrate
from core.store.models import Meta, Participant
from core.store.sqlite.engines import sqlite_engine
from core.store.sqlite.thread_connections import HeldConnections, is_clean


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'agentmail.db'}")
    await migrate(store)
    try:
        yield store
    finally:
        await store.close()


def _checkouts(store: Store) -> list[str]:
    """Pool checkouts of both engines (an observer of the real pool)."""
    seen: list[str] = []
    event.listen(store.engines[0].pool, "checkout", lambda *_: seen.append("write"))
    event.listen(store.engines[1].pool, "checkout", lambda *_: seen.append("read"))
    return seen


def _put(key: str) -> object:
    def run(session: Session) -> None:
        session.add(Meta(key=key, value=key))

    return run


async def test_transactions_keep_their_threads_connections(store: Store) -> None:
    seen = _checkouts(store)
    for n in range(20):
        await store.write(_put(f"k{n}"))
        assert await store.read(lambda s, n=n: s.get(Meta, f"k{n}")) is not None
    # The writer took its one connection at migration; each reader thread one at most.
    assert seen.count("write") == 0
    assert seen.count("read") <= 4


async def test_a_lone_write_whose_commit_fails_leaves_the_writer_healthy(store: Store) -> None:
    def dangling(session: Session) -> None:
        session.execute(text("PRAGMA defer_foreign_keys = ON"))
        session.add(Participant(session_id="no-such-conversation", name="ghost"))

    with pytest.raises(IntegrityError):
        await store.write(dangling)  # fails at COMMIT
    await store.write(_put("after"))
    names = await store.read(lambda s: s.scalars(select(Participant.name)).all())
    assert names == []
    assert await store.read(lambda s: s.get(Meta, "after")) is not None


async def test_a_lone_write_whose_flush_fails_leaves_nothing_and_the_writer_healthy(
    store: Store,
) -> None:
    """The ORM rolls its Session back when a flush fails, and the Session is joined to
    the store's transaction (held.joined_session): that rolls the transaction back once,
    and the store must not roll it back a second time (SQLAlchemy warns, an error here)."""
    await store.write(_put("taken"))

    def clashing(session: Session) -> None:
        session.execute(text("INSERT INTO meta (key, value) VALUES ('before', 'x')"))
        session.add(Meta(key="taken", value="again"))
        session.flush()  # duplicate primary key

    with pytest.raises(IntegrityError):
        await store.write(clashing)
    assert await store.read(lambda s: s.get(Meta, "before")) is None
    await store.write(_put("after"))
    assert await store.read(lambda s: s.get(Meta, "after")) is not None


def test_a_connection_left_in_a_transaction_goes_back_rolled_back(tmp_path: Path) -> None:
    engine = sqlite_engine(f"sqlite:///{tmp_path / 'x.db'}", "BEGIN", pool_size=2)
    held = HeldConnections(engine)
    try:
        connection = held.connection()
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        connection.commit()
        assert held.connection() is connection and is_clean(connection)
        connection.begin()
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
        assert not is_clean(connection)
        held.release_unless_clean()
        fresh = held.connection()
        assert fresh is not connection and is_clean(fresh)
        assert fresh.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0
        fresh.rollback()
    finally:
        held.close()
        engine.dispose()


def test_a_failed_read_keeps_a_clean_connection_and_threads_their_own(tmp_path: Path) -> None:
    engine = sqlite_engine(f"sqlite:///{tmp_path / 'x.db'}", "BEGIN", pool_size=2)
    held = HeldConnections(engine)

    def fails(session: Session) -> None:
        session.execute(text("SELECT 1"))
        raise LookupError("refused")

    try:
        with pytest.raises(LookupError):
            held.read(fails)
        kept = held.connection()
        assert is_clean(kept)
        assert held.read(lambda s: s.connection()) is kept
        other: list[object] = []
        thread = threading.Thread(target=lambda: other.append(held.read(lambda s: s.connection())))
        thread.start()
        thread.join()
        assert other and other[0] is not kept
    finally:
        held.close()
        engine.dispose()

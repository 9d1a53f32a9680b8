"""Concurrent writes: one that fails takes only its own rows and events with it.

On SQLite the writer thread runs queued writes as one group (one COMMIT, a
SAVEPOINT each, `core/store/sqlite/group_commit.py`); on PostgreSQL each write is its own
transaction. The caller-visible rules are the same on both and checked on both.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.store.engine import Store, database_url
from core.store.events import emit
from core.store.migrate import migrate
from core.store.models import Event, Meta, Participant

WRITES = 30
FAILING = 13


class Refused(Exception):
    pass


@pytest.fixture
async def store(database_url: str, tmp_path: Path) -> AsyncIterator[Store]:
    store = Store(_normalised(database_url, tmp_path))
    await migrate(store)
    try:
        yield store
    finally:
        await store.close()


def _normalised(url: str, tmp_path: Path) -> str:
    return database_url(url, tmp_path / "agentmail.db")


class Gate:
    """Holds the writer thread inside the first write until the others are queued."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def hold(self) -> None:
        self.entered.set()
        assert self.opened.wait(10)

    async def until_held(self) -> None:
        while not self.entered.is_set():
            await asyncio.sleep(0.005)


def _writer(index: int, gate: Gate | None = None) -> Any:
    def run(session: Session) -> int:
        if gate is not None:
            gate.hold()
        session.add(Meta(key=f"k{index}", value=str(index)))
        emit(session, [f"r{index}"], "session_update", {"index": index})
        session.flush()
        if index == FAILING:
            raise Refused(f"write {index} refuses")
        return index

    return run


def _commits(store: Store) -> list[int]:
    """Counts the COMMITs of SQLite's writer engine (an observer, not a stand-in)."""
    counted: list[int] = []
    event.listen(store.engines[0], "commit", lambda _conn: counted.append(1))
    return counted


async def _queued(store: Store, gate: Gate | None) -> list[Any]:
    first = asyncio.ensure_future(store.write(_writer(0, gate)))
    if gate is not None:
        await gate.until_held()
    rest = [asyncio.ensure_future(store.write(_writer(i))) for i in range(1, WRITES)]
    await asyncio.sleep(0.05)  # every write is queued behind the first one
    if gate is not None:
        gate.opened.set()
    return list(await asyncio.gather(first, *rest, return_exceptions=True))


async def _stored(store: Store) -> tuple[set[str], list[tuple[int, str]]]:
    def run(session: Session) -> tuple[set[str], list[tuple[int, str]]]:
        keys = set(session.scalars(select(Meta.key).where(Meta.key.like("k%"))))
        events = session.execute(
            select(Event.id, Event.recipient).where(Event.recipient.like("r%"))
        )
        return keys, [(row.id, row.recipient) for row in events]

    return await store.read(run)


async def test_a_failing_write_rolls_back_alone_and_its_caller_gets_its_error(
    store: Store,
) -> None:
    sqlite = store.dialect == "sqlite"
    gate = Gate() if sqlite else None
    commits = _commits(store) if sqlite else []

    outcomes = await _queued(store, gate)

    failed = outcomes[FAILING]
    assert isinstance(failed, Refused) and str(failed) == f"write {FAILING} refuses"
    assert [o for i, o in enumerate(outcomes) if i != FAILING] == [
        i for i in range(WRITES) if i != FAILING
    ]
    keys, events = await _stored(store)
    assert keys == {f"k{i}" for i in range(WRITES) if i != FAILING}
    assert sorted(r for _, r in events) == sorted(f"r{i}" for i in range(WRITES) if i != FAILING)
    if sqlite:
        # The 29 writes queued behind the first shared one COMMIT, and event ids
        # follow the order the writes committed in.
        assert len(commits) == 2
        by_id = [int(r[1:]) for _, r in sorted(events)]
        assert by_id == sorted(by_id)


async def test_a_write_alone_that_fails_leaves_nothing(store: Store) -> None:
    """A group of one runs without a SAVEPOINT (SQLite): its failure rolls back its
    transaction, rows and events, and the writer goes on."""
    with pytest.raises(Refused):
        await store.write(_writer(FAILING))
    assert await store.write(_writer(1)) == 1
    keys, events = await _stored(store)
    assert keys == {"k1"} and [r for _, r in events] == ["r1"]


async def test_each_caller_sees_its_own_result_objects_intact(store: Store) -> None:
    """A write's returned ORM objects are its own: a later write in the same group
    that changes the same row, then fails, does not expire or alter them."""
    await store.write(lambda s: s.add(Meta(key="shared", value="before")))

    def read_it(session: Session) -> Meta:
        meta = session.get(Meta, "shared")
        assert meta is not None
        return meta

    def change_then_fail(session: Session) -> None:
        meta = session.get(Meta, "shared")
        assert meta is not None
        meta.value = "changed"
        session.flush()
        raise Refused("no")

    results = await asyncio.gather(
        store.write(read_it), store.write(change_then_fail), return_exceptions=True
    )
    assert isinstance(results[1], Refused)
    kept = results[0]
    assert isinstance(kept, Meta) and kept.value == "before"
    assert await store.read(lambda s: s.scalar(select(Meta.value).where(Meta.key == "shared")))


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_failed_commit_fails_every_write_of_its_group(store: Store) -> None:
    """A deferred foreign key fails only at COMMIT (SQLite's `defer_foreign_keys`):
    nobody in that group is acknowledged and none of their rows or events stay."""
    gate = Gate()

    def dangling(session: Session) -> None:
        session.execute(text("PRAGMA defer_foreign_keys = ON"))
        session.add(Participant(session_id="no-such-conversation", name="ghost"))
        emit(session, ["r-dangling"], "session_update", {})

    first = asyncio.ensure_future(store.write(_writer(100, gate)))
    await gate.until_held()
    group = [asyncio.ensure_future(store.write(_writer(i))) for i in range(1, 5)]
    group.append(asyncio.ensure_future(store.write(dangling)))
    await asyncio.sleep(0.05)
    gate.opened.set()
    assert await first == 100
    outcomes = await asyncio.gather(*group, return_exceptions=True)
    assert all(isinstance(o, IntegrityError) for o in outcomes), outcomes
    keys, events = await _stored(store)
    assert keys == {"k100"}
    assert [r for _, r in events] == ["r100"]
    # The writer is healthy afterwards.
    assert await store.write(_writer(7)) == 7


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_write_that_ends_the_transaction_fails_its_whole_group(store: Store) -> None:
    """SQLite ends the whole transaction on some errors (disk full, I/O error); a write
    issuing ROLLBACK itself leaves the same state. The writes after it must not run
    outside the group's transaction (their RELEASE would commit them alone)."""
    gate = Gate()

    def ends_the_transaction(session: Session) -> None:
        session.connection().exec_driver_sql("ROLLBACK")
        raise Refused("the transaction is gone")

    first = asyncio.ensure_future(store.write(_writer(200, gate)))
    await gate.until_held()
    group = [asyncio.ensure_future(store.write(_writer(1)))]
    group.append(asyncio.ensure_future(store.write(ends_the_transaction)))
    group += [asyncio.ensure_future(store.write(_writer(i))) for i in (2, 3)]
    await asyncio.sleep(0.05)
    gate.opened.set()
    assert await first == 200
    outcomes = await asyncio.gather(*group, return_exceptions=True)
    assert all(isinstance(o, Exception) for o in outcomes), outcomes
    keys, events = await _stored(store)
    assert keys == {"k200"}
    assert [r for _, r in events] == ["r200"]
    assert await store.write(_writer(7)) == 7

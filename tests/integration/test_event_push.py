"""Events handed to this process's streams at commit, and when a stream reads the rows instead.

A stream is driven here as `api/routes/events.py` drives it (read while not
complete, else take what was pushed), against real stores on both databases. A
second `Store` on the same database plays another process (the CLI on SQLite, a
replica on PostgreSQL): its events never reach the first store's bus, so they
must be found by reading, never skipped by a pushed id beyond them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from core.store.bus import PUSH_LIMIT, EventBus, Pushed, Subscription
from core.store.engine import Store, database_url
from core.store.events import emit, events_after
from core.store.migrate import migrate

LIMIT = 500  # a read's batch, as the SSE route's


@pytest.fixture
async def stores(database_url: str, tmp_path: Path) -> AsyncIterator[tuple[Store, Store]]:
    url = database_url_of(database_url, tmp_path)
    here, other = Store(url), Store(url)
    await migrate(here)
    try:
        yield here, other
    finally:
        await here.close()
        await other.close()


def database_url_of(url: str, tmp_path: Path) -> str:
    return database_url(url, tmp_path / "agentmail.db")


async def write(store: Store, *events: tuple[str, str]) -> None:
    """One transaction emitting `(recipient, tag)` events, in that order."""

    def run(session: Session) -> None:
        for recipient, tag in events:
            emit(session, [recipient], "new_mail", {"tag": tag})

    await store.write(run)


class Stream:
    """The SSE loop of api/routes/events.py without HTTP: what it would send, and how."""

    def __init__(self, store: Store, subscription: Subscription) -> None:
        self.store = store
        self.subscription = subscription
        self.cursor = 0
        self.reads = 0

    async def step(self) -> list[str]:
        self.subscription.clear()
        if self.subscription.complete:
            batch = self.subscription.take(self.cursor)
        else:
            generation = self.subscription.generation
            recipient = self.subscription.recipient
            read = await events_after(self.store, recipient, self.cursor, LIMIT)
            self.reads += 1
            batch = read.events
            if len(batch) < LIMIT:  # else the next step reads on
                self.subscription.caught_up(read.through, generation)
        if batch:
            self.cursor = batch[-1].id
        return [str(item.payload["tag"]) for item in batch]


async def test_own_commits_are_pushed_and_others_are_read(stores: tuple[Store, Store]) -> None:
    here, other = stores
    with here.bus.subscribe("x", events=True) as x, here.bus.subscribe("y", events=True) as y:
        sx, sy = Stream(here, x), Stream(here, y)
        assert await sx.step() == [] and await sy.step() == []  # the first read
        await write(here, ("x", "1"), ("y", "1"))  # the process's first push: a gap
        assert await sx.step() == ["1"] and await sy.step() == ["1"]
        reads = sx.reads + sy.reads
        await write(here, ("x", "2"))
        await write(here, ("y", "2"), ("x", "3"))
        assert await sx.step() == ["2", "3"] and await sy.step() == ["2"]
        assert sx.reads + sy.reads == reads  # contiguous ids: nothing read back

        await write(other, ("x", "from the other"))  # no push here: only its rows
        await write(here, ("y", "3"))  # the id after it is not the next one pushed
        assert not x.complete and not y.complete
        assert await sy.step() == ["3"]
        assert await sx.step() == ["from the other"]  # read, not skipped
        await write(here, ("x", "4"))
        assert await sx.step() == ["4"]
        assert sx.reads == 3 and sy.reads == 3  # the first, after the first push, the gap


async def test_a_wake_from_elsewhere_and_a_slow_stream_read_the_rows(
    stores: tuple[Store, Store],
) -> None:
    here, _ = stores
    with here.bus.subscribe("x", events=True) as x:
        stream = Stream(here, x)
        await write(here, ("x", "0"))
        await stream.step()
        await write(here, ("x", "1"))
        assert x.complete
        here.bus.publish(["x"])  # another replica's NOTIFY names x
        assert not x.complete
        assert await stream.step() == ["1"]
        assert x.complete
        # A stream that does not keep up (one transaction's worth, to keep the test short).
        await write(here, *[("x", f"p{n}") for n in range(PUSH_LIMIT + 1)])
        assert not x.complete
        tags = await stream.step()
        assert len(tags) == LIMIT and not x.complete  # cut by the limit: it reads on
        tags += await stream.step()
        assert tags == [f"p{n}" for n in range(PUSH_LIMIT + 1)] and x.complete


class RecordingBus(EventBus):
    """The real bus, noting which task (if any) each push ran in."""

    def __init__(self) -> None:
        super().__init__()
        self.pushed_in: list[asyncio.Task[Any] | None] = []

    def push(self, events: Sequence[Pushed], wakes: Iterable[str]) -> None:
        self.pushed_in.append(asyncio.current_task())
        super().push(events, wakes)


async def test_a_commit_is_pushed_before_its_writer_runs_again(
    database_url: str, tmp_path: Path
) -> None:
    """On SQLite the writer thread's COMMIT reaches the loop as one callback, and the
    streams are told in it: on a busy loop every task step between them is a turn of
    every other ready callback (the delivery latency). PostgreSQL commits on the loop,
    in the write's own task, which pushes right after."""
    bus = RecordingBus()
    store = Store(database_url_of(database_url, tmp_path), bus)
    await migrate(store)
    try:
        with bus.subscribe("x", events=True) as x:
            woken = asyncio.create_task(x.wait())
            writer = asyncio.create_task(write(store, ("x", "a")))
            await writer
            assert woken.done()
        (pushed_in,) = bus.pushed_in
        if store.dialect == "sqlite":
            assert pushed_in is None  # the commit's callback, before any task step
        else:
            assert pushed_in is not None and pushed_in is not writer
    finally:
        await store.close()

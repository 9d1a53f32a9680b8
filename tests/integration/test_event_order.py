"""Event ids become visible in commit order (PostgreSQL): no reader ever skips an event.

SSE resume is a range query (`id > Last-Event-ID`), and a stream that read through
id N goes on from N (core/store/events.py, core/store/bus.py). That is only right
if no event below N can still commit after a reader saw N. On SQLite one writer
guarantees it; on PostgreSQL concurrent writers take their ids in one order and
may commit in another, so the store must keep a writer that took a higher id from
becoming visible before a lower one (today: the events advisory lock held through
COMMIT, core/store/engine.py).

The test makes the out-of-order case happen on purpose instead of hoping for it: a
deferred constraint trigger, created in this test's database only, holds the COMMIT
of a write whose event is tagged `held` until the test lets it go. Meanwhile a
second write emits an event and commits if it can, and streams read. Whatever the
store does to order the commits, every stream must end with both events, in id
order, each once: a stream on the writing store (events pushed at commit) and one
on a second store (another replica: it reads the rows). With the events lock taken
out (the probe of docs/performance.md), the second write commits first, both
streams move their cursor past the held event's id, and the test fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from core.store.engine import Store, database_url
from core.store.migrate import migrate
from tests.integration.test_event_push import Stream, write

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

_HOLD_KEY = 4242  # the test's own advisory lock: held, it holds the tagged COMMIT
_HOLD = f"""
CREATE FUNCTION test_hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.payload ->> 'tag' = 'held' THEN
        PERFORM pg_advisory_lock_shared({_HOLD_KEY});
        PERFORM pg_advisory_unlock_shared({_HOLD_KEY});
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER test_hold_commit AFTER INSERT ON events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_hold_commit();
"""
_WAITING = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


@pytest.fixture
async def admin(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    url = make_url(database_url)
    connection = await asyncpg.connect(
        host=url.host, port=url.port, user=url.username, database=url.database
    )
    try:
        yield connection
    finally:
        await connection.close()


async def _until_held(admin: asyncpg.Connection) -> None:
    """Until the tagged write waits in its COMMIT (its event inserted, its id taken)."""
    for _ in range(300):
        if await admin.fetchval(_WAITING, _HOLD_KEY):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the held write never reached its COMMIT")


async def test_a_later_id_never_becomes_visible_before_an_earlier_one(
    database_url: str, tmp_path: Path, admin: asyncpg.Connection
) -> None:
    url = database_url_of(database_url, tmp_path)
    here, replica = Store(url), Store(url)
    await migrate(here)
    await admin.execute(_HOLD)
    try:
        with (
            here.bus.subscribe("x", events=True) as pushed,
            replica.bus.subscribe("x", events=True) as read,
        ):
            streams = [Stream(here, pushed), Stream(replica, read)]
            seen: list[list[str]] = [await s.step() for s in streams]
            await write(here, ("x", "before"))  # the process's first push

            await admin.execute("SELECT pg_advisory_lock($1)", _HOLD_KEY)
            held = asyncio.ensure_future(write(here, ("x", "held")))
            await _until_held(admin)
            later = asyncio.ensure_future(write(here, ("x", "later")))
            await asyncio.wait({later}, timeout=1.0)  # commits now if the store lets it
            for stream, tags in zip(streams, seen, strict=True):
                replica.bus.publish(["x"])  # a NOTIFY would wake the replica's stream
                tags += await stream.step()
            await admin.execute("SELECT pg_advisory_unlock($1)", _HOLD_KEY)
            await asyncio.wait_for(asyncio.gather(held, later), 30)

            replica.bus.publish(["x"])
            for stream, tags in zip(streams, seen, strict=True):
                tags += await stream.step()
                tags += await stream.step()  # nothing more, nothing twice
        assert seen == [["before", "held", "later"]] * 2
    finally:
        await here.close()
        await replica.close()


def database_url_of(url: str, tmp_path: Path) -> str:
    return database_url(url, tmp_path / "agentmail.db")

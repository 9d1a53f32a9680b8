"""A rolling upgrade of the cluster world onto a schema change, while a load runs.

Each replica in turn is stopped (SIGTERM) and started on the next release
(tests/support/upgraded_release.py): the first one adds a column on start-up, and the
replicas still on the old release keep serving on the new schema and stay ready. No
request fails beyond temporary answers its client retried, no mail is lost or stored
twice, and an event stream resumes across every restart without a gap.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.support.cluster_checks import resumed_without_gap, stored_exactly_once
from tests.support.cluster_load import start_load, users, writer_client
from tests.support.cluster_sse import Follower
from tests.support.cluster_world import ClusterWorld, api
from tests.support.gateway import PASSWORD
from tests.support.upgraded_release import COLUMN, REVISION, TABLE, build_release

pytestmark = [pytest.mark.cluster, pytest.mark.postgres]


async def _ready(world: ClusterWorld) -> dict[str, int]:
    async with httpx.AsyncClient(timeout=15) as client:
        return {
            r.name: (await client.get(f"{r.http_url}/readyz")).status_code for r in world.replicas
        }


async def test_replicas_upgraded_one_by_one_onto_a_new_column_under_load(
    cluster_world: ClusterWorld, tmp_path: Path
) -> None:
    world = cluster_world
    release = await asyncio.to_thread(build_release, tmp_path / "release")
    await users(world)
    front = api(world.front)
    try:
        writer = await writer_client(front)
        reader = front.client(await front.user_key(await front.login("reader", PASSWORD)))
        follower = Follower(reader)
        follower.start()
        async with asyncio.timeout(30):
            await follower.connected.wait()
        load = await start_load(world, writer)
        await load.ledger.acknowledged_reach(8)
        stops = []
        for replica in world.replicas:
            began = asyncio.get_running_loop().time()
            assert await world.stop(replica) == 0
            stops.append(round(asyncio.get_running_loop().time() - began, 1))
            await world.start(replica, cwd=release, PYTHONPATH=str(release))
            assert await _ready(world) == {"a": 200, "b": 200, "c": 200}
            await load.ledger.acknowledged_reach(len(load.ledger.acknowledged) + 8)
        ledger = await load.finish()
        assert ledger.failures == []
        stored = await stored_exactly_once(world, ledger)
        await resumed_without_gap([follower], reader, stored)
        await follower.close()
        added = await world.query(
            "SELECT is_nullable FROM information_schema.columns"
            " WHERE table_name = $1 AND column_name = $2",
            TABLE,
            COLUMN,
        )
        assert [row["is_nullable"] for row in added] == ["YES"]
        versions = await world.query("SELECT version_num FROM alembic_version")
        assert [row["version_num"] for row in versions] == [REVISION]
        print(f"acknowledged {len(ledger.acknowledged)}, stored {stored}, reads {ledger.reads}")
        print(f"temporary answers (retried): {dict(ledger.temporary)}")
        print(f"the stream's connections: {follower.upstreams}; stops took {stops} s")
    finally:
        await front.close()

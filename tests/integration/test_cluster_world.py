"""The cluster world under failure (tests/support/cluster_world.py): three replicas in
network namespaces sharing only PostgreSQL and SeaweedFS, nginx in front. A replica
killed during a mixed load, and the object store away for ten seconds: no mail is
acknowledged and lost or stored twice, and event streams resume without a gap.
`make test` runs these two; `make test-cluster` runs tests/cluster's scenarios too.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.support.cluster_checks import resumed_without_gap, stored_exactly_once
from tests.support.cluster_load import start_load, users, writer_client
from tests.support.cluster_sse import followers_until_one_on
from tests.support.cluster_world import ClusterWorld, api
from tests.support.gateway import PASSWORD

pytestmark = [pytest.mark.cluster, pytest.mark.postgres]

OUTAGE_SECONDS = 10.0  # how long the object store stays away: the scenario, not a wait


async def _greeting_from(host: str, port: int, source: str) -> bytes:
    """What a replica's SMTP port says to a connection from `source` that begins as a
    client would (EHLO), not with a PROXY header; b"" when it closes the connection
    (a reset too: what it closes on has the unread EHLO)."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    try:
        writer.write(b"EHLO client.example\r\n")
        await writer.drain()
        return await asyncio.wait_for(reader.readline(), 30)
    except ConnectionResetError:
        return b""
    finally:
        writer.close()


async def test_a_replica_killed_during_a_mixed_load_loses_and_repeats_nothing(
    cluster_world: ClusterWorld,
) -> None:
    world = cluster_world
    b = world.replica("b")
    # The mail below comes through nginx's PROXY headers: from nginx's address, a
    # connection without one is closed unanswered; from anywhere else it is served.
    a = world.replica("a")
    assert await _greeting_from(a.host, a.smtp_port, world.network.balancer) == b""
    said = await _greeting_from(a.host, a.smtp_port, world.network.services_host)
    assert said.startswith(b"220"), said
    await users(world)
    front = api(world.front)
    try:
        writer = await writer_client(front)
        reader = front.client(await front.user_key(await front.login("reader", PASSWORD)))
        followers = await followers_until_one_on(reader, f"{b.host}:{b.http_url.rsplit(':', 1)[1]}")
        load = await start_load(world, writer)
        await load.ledger.acknowledged_reach(12)
        await world.kill(b)
        killed_at = len(load.ledger.acknowledged)
        await load.ledger.acknowledged_reach(killed_at + 12)
        ledger = await load.finish()
        assert ledger.failures == []
        stored = await stored_exactly_once(world, ledger)
        await resumed_without_gap(followers, reader, stored)
        on_b = followers[-1]
        assert len(on_b.upstreams) >= 2 and b.host not in on_b.upstreams[-1], on_b.upstreams
        print(f"acknowledged {len(ledger.acknowledged)}, stored {stored}, reads {ledger.reads}")
        print(f"temporary answers: {dict(ledger.temporary)}")
        for follower in followers:
            await follower.close()
    finally:
        await front.close()


async def test_the_object_store_away_is_a_temporary_error_and_nothing_is_lost(
    cluster_world: ClusterWorld,
) -> None:
    world = cluster_world
    await users(world)
    front = api(world.front)
    try:
        writer = await writer_client(front)
        load = await start_load(world, writer, rest=1, smtp=1, imap=1)
        await load.ledger.acknowledged_reach(6)
        await asyncio.to_thread(world.seaweedfs.stop)
        await asyncio.sleep(OUTAGE_SECONDS)
        refused = dict(load.ledger.temporary)
        await asyncio.to_thread(world.seaweedfs.start)
        back_at = len(load.ledger.acknowledged)
        await load.ledger.acknowledged_reach(back_at + 6)
        ledger = await load.finish()
        assert ledger.failures == []
        assert refused.get("upload 503", 0) > 0 and refused.get("smtp 451", 0) > 0, refused
        await stored_exactly_once(world, ledger)
        print(f"acknowledged {len(ledger.acknowledged)}, temporary: {dict(ledger.temporary)}")
    finally:
        await front.close()

"""Jobs that run when there is work, on both backends: the commit that queues a push,
an outbound mail or a request with a deadline wakes its job at once, and each queue
says when its next piece falls due (core/store/due_jobs.py), so that an idle gateway
sleeps instead of asking the database every second."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.approvals.permissions import next_expiry
from core.mail.new_mail import DEADLINE_WAKE
from core.outbound import queue as outbound
from core.outbound.allowed import set_user_outbound
from core.push import jobs as push
from core.push.subscriptions import subscribe
from core.settings import Limits
from core.store.due_jobs import run_when_due, then_next_due
from core.store.engine import Store
from core.store.models import Mail, OutboundJob, PushJob, utcnow
from core.store.replicas import ReplicaListener
from core.tasks import cancel_and_wait
from tests.domain.world import World

QUIET = 3600.0  # here only a wake-up can start a second round
HANG_BOUND_SECONDS = 30  # a bound on a hang, not a measure: a wake-up runs it at once
KEYS = ("B" + "A" * 86, "A" * 22)
BOB = "mailto:bob@example.com"


class Rounds:
    """A job that counts its rounds."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    async def __call__(self) -> None:
        self.count += 1
        self._changed.set()

    async def reach(self, count: int) -> None:
        async with asyncio.timeout(HANG_BOUND_SECONDS):
            while self.count < count:
                self._changed.clear()
                await self._changed.wait()


@asynccontextmanager
async def running(
    store: Store, wake: str, next_due: Callable[[Session], datetime | None]
) -> AsyncIterator[Rounds]:
    """The job running, its first round done and nothing due: it sleeps for `QUIET`."""
    rounds = Rounds()
    loop = run_when_due(store, then_next_due(store, rounds, next_due), wake, "test", quiet=QUIET)
    task = asyncio.create_task(loop)
    try:
        await rounds.reach(1)
        yield rounds
    finally:
        await cancel_and_wait([task], "test")


async def _subscribed(world: World, owner: str) -> None:
    endpoint = f"https://127.0.0.1:9/push/{owner}"
    await subscribe(world.store, owner, endpoint, *KEYS, "test", allow_private=True)


async def test_a_request_to_a_subscribed_human_wakes_the_push_sender(world: World) -> None:
    await world.human("jianf")
    builder = await world.agent("builder")
    await _subscribed(world, "jianf")
    async with running(world.store, push.WAKE, push.next_due) as rounds:
        await builder.ask(to="jianf@", question="May I deploy?")
        await rounds.reach(2)


async def test_a_mail_outside_wakes_the_outbound_sender(world: World) -> None:
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    async with running(world.store, outbound.WAKE, outbound.next_due) as rounds:
        await jianf.send(to=BOB, subject="Hello")
        await rounds.reach(2)


async def test_a_request_with_a_deadline_wakes_the_expiry(world: World) -> None:
    await world.human("jianf")
    builder = await world.agent("builder")
    async with running(world.store, DEADLINE_WAKE, next_expiry) as rounds:
        await builder.ask(to="jianf@", question="May I deploy?", expires_in="1h")
        await rounds.reach(2)


async def test_the_push_queue_says_when_its_next_job_is_due(world: World) -> None:
    store = world.store
    await world.human("jianf")
    builder = await world.agent("builder")
    await _subscribed(world, "jianf")
    assert await store.read(push.next_due) is None
    await builder.ask(to="jianf@", question="May I deploy?")
    (job,) = await store.read(lambda s: list(s.scalars(select(PushJob))))
    assert await store.read(push.next_due) == job.due_at
    now = utcnow()
    (claimed,) = await store.write(lambda s: push.claim(s, now, 10))
    assert await store.read(push.next_due) == now + push.LEASE  # held: free when it ends
    await store.write(lambda s: push.settle(s, [(claimed, "retry")], now))
    assert await store.read(push.next_due) == now + push.backoff(1)
    await store.write(lambda s: push.settle(s, [(claimed, "sent")], now))
    assert await store.read(push.next_due) is None


async def test_the_outbound_queue_says_when_its_next_job_is_due(world: World) -> None:
    store = world.store
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(store, "jianf", True)
    assert await store.read(outbound.next_due) is None
    await jianf.send(to=BOB, subject="Hello")
    (job,) = await store.read(lambda s: list(s.scalars(select(OutboundJob))))
    assert await store.read(outbound.next_due) == job.due_at
    now = utcnow()

    def deliver(session: Session) -> None:
        jobs = outbound.claim(session, now, 10, outbound.Rates(100, 100), timedelta(minutes=5))
        settled: list[tuple[outbound.Claimed, outbound.Outcome, str]] = [
            (claimed, "sent", "250 ok") for claimed in jobs
        ]
        outbound.settle(
            session, settled, now, give_up=timedelta(days=5), minimum=timedelta(minutes=30)
        )

    await store.write(deliver)
    assert await store.read(outbound.next_due) is None  # sent: kept, but not queued


async def test_the_nearest_deadline_is_of_an_open_request(world: World) -> None:
    store = world.store
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    assert await store.read(next_expiry) is None
    await builder.ask(to="jianf@", question="Whenever?")  # no deadline
    assert await store.read(next_expiry) is None
    later = await builder.ask(to="jianf@", question="Today?", expires_in="8h")
    sooner = await builder.ask(to="jianf@", question="Now?", expires_in="1h")

    async def deadline_of(mail_id: str) -> datetime | None:
        query = select(Mail.expires_at).where(Mail.id == mail_id)
        found: datetime | None = await store.read(lambda s: s.scalar(query))
        return found

    assert await store.read(next_expiry) == await deadline_of(sooner["mail_id"])
    await jianf.decide(sooner["mail_id"], "approve")
    assert await store.read(next_expiry) == await deadline_of(later["mail_id"])
    await jianf.decide(later["mail_id"], "reject")
    assert await store.read(next_expiry) is None


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)  # replicas share it
async def test_a_commit_in_another_replica_wakes_it(world: World) -> None:
    """The wake-up rides the commit's NOTIFY to the other replicas."""
    await world.human("jianf")
    builder = await world.agent("builder")
    await _subscribed(world, "jianf")
    other = Store(world.store.url)
    listener = ReplicaListener(other, other.bus)
    try:
        await listener.start()
        async with asyncio.timeout(HANG_BOUND_SECONDS):
            await listener.connected.wait()
        async with running(other, push.WAKE, push.next_due) as rounds:
            await builder.ask(to="jianf@", question="May I deploy?")  # through world.store
            await rounds.reach(2)
    finally:
        await listener.stop()
        await other.close()

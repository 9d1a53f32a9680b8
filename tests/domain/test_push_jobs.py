"""Push jobs on both backends: replicas claiming at once never take the same job, a
claim is a lease, and settling a round retries, drops or forgets as the push service
said; every replica reads the same VAPID key, however many start at once."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.push.jobs import LEASE, MAX_ATTEMPTS, Claimed, Outcome, claim, queue_pushes, settle
from core.push.keys import ensure_vapid_key, public_key_of
from core.push.subscriptions import subscribe
from core.secrets.box import SecretBox
from core.store.engine import Store
from core.store.models import PushJob, PushSubscription, utcnow
from tests.domain.world import World

KEYS = ("B" + "A" * 86, "A" * 22)


async def _subscribed(store: Store, owner: str, n: int) -> list[str]:
    made = []
    for i in range(n):
        endpoint = f"https://127.0.0.1:9/push/{owner}-{i}"
        view = await subscribe(store, owner, endpoint, *KEYS, "test", allow_private=True)
        made.append(view.subscription_id)
    return made


async def _queue(store: Store, people: list[str], mail_id: str = "m1") -> None:
    await store.write(lambda s: queue_pushes(s, people, {"mail_id": mail_id}))


async def _count(store: Store, model: type[PushJob] | type[PushSubscription]) -> int:
    return int(await store.read(lambda s: s.scalar(select(func.count()).select_from(model))))


async def test_replicas_claiming_at_once_take_each_job_once(store: Store) -> None:
    await _subscribed(store, "jianf", 6)
    await _subscribed(store, "bob", 4)
    await _queue(store, ["jianf", "bob", "nobody"])
    now = utcnow()
    rounds = await asyncio.gather(*(store.write(lambda s: claim(s, now, 3)) for _ in range(5)))
    taken = [job.job_id for jobs in rounds for job in jobs]
    assert len(taken) == len(set(taken)) == 10
    assert {job.owner for jobs in rounds for job in jobs} == {"jianf", "bob"}


async def test_a_claim_is_a_lease(store: Store) -> None:
    await _subscribed(store, "jianf", 1)
    await _queue(store, ["jianf"])
    now = utcnow()
    (first,) = await store.write(lambda s: claim(s, now, 10))
    assert first.attempts == 1 and first.payload == {"mail_id": "m1"}
    assert await store.write(lambda s: claim(s, now + LEASE / 2, 10)) == []
    later = now + LEASE + timedelta(seconds=1)  # the claiming replica died mid-send
    (again,) = await store.write(lambda s: claim(s, later, 10))
    assert (again.job_id, again.attempts) == (first.job_id, 2)


class Clock:
    """Each round an hour after the last: past any backoff and lease."""

    def __init__(self) -> None:
        self.now = utcnow()

    def next(self) -> datetime:
        self.now += timedelta(hours=1)
        return self.now


async def _round(store: Store, outcome: Outcome, clock: Clock) -> list[Claimed]:
    now = clock.next()
    jobs = await store.write(lambda s: claim(s, now, 10))

    def record(session: Session) -> None:
        settle(session, [(job, outcome) for job in jobs], now)

    await store.write(record)
    return jobs


async def test_settling_retries_drops_and_forgets(store: Store) -> None:
    clock = Clock()
    (kept,) = await _subscribed(store, "jianf", 1)
    await _queue(store, ["jianf"])
    assert len(await _round(store, "retry", clock)) == 1
    assert await _count(store, PushJob) == 1  # due again after its backoff
    assert len(await _round(store, "sent", clock)) == 1
    assert await _count(store, PushJob) == 0

    for _ in range(2):
        await _queue(store, ["jianf"])
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert len(await _round(store, "retry", clock)) == 2, attempt
    assert await _count(store, PushJob) == 0  # given up after MAX_ATTEMPTS
    assert await _count(store, PushSubscription) == 1

    await _queue(store, ["jianf"])
    await _queue(store, ["jianf"], "m2")
    (gone, *_rest) = await _round(store, "gone", clock)
    assert gone.subscription_id == kept
    assert await _count(store, PushSubscription) == 0
    assert await _count(store, PushJob) == 0


async def test_every_replica_reads_one_vapid_key(store: Store) -> None:
    box = SecretBox(b"a replica's secret key, 32+ characters long")
    keys = await asyncio.gather(*(ensure_vapid_key(store, box) for _ in range(4)))
    assert len(set(keys)) == 1
    assert await ensure_vapid_key(store, box) == keys[0]
    assert len(public_key_of(keys[0])) == 87  # 65 bytes, base64url


async def test_a_request_decided_before_its_push_goes_out_is_not_pushed(world: World) -> None:
    store = world.store
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    await _subscribed(store, "jianf", 1)
    still_open = await builder.ask(to="jianf@", question="May I deploy?")
    decided = await builder.ask(to="jianf@", question="May I merge?")
    await jianf.decide(decided["mail_id"], "approve")
    question = await builder.send(to="jianf@", subject="Which?", mail_type="question")

    jobs = await store.write(lambda s: claim(s, utcnow(), 10))
    pushed = {job.payload["mail_id"] for job in jobs}
    assert pushed == {still_open["mail_id"], question["mail_id"]}
    assert await _count(store, PushJob) == 2  # the decided request's job is gone

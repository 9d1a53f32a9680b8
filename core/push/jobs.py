"""Push jobs: written with the mail they tell of, claimed by one replica, then settled.

A job row is written in the transaction of the permission request or question, so a
push is sent for every committed request and for none that rolled back; one replica
claims it after COMMIT, with a lease (core/store/leases.py), woken by that commit
(`WAKE`, in every replica). A request decided or expired before its push went out is
not pushed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from core.push.message import Target
from core.store import leases
from core.store.engine import wake_after_commit
from core.store.models import Mail, PushJob, PushSubscription, table_of, utcnow

Outcome = Literal["sent", "retry", "gone", "dropped"]
LEASE = timedelta(minutes=2)
MAX_ATTEMPTS = 8  # about ten minutes of backoff
WAKE = "!push"  # the senders' wake-up: a name no person has (core/store/bus.py)
_JOBS = table_of(PushJob)


@dataclass(frozen=True, slots=True)
class Claimed:
    job_id: int
    subscription_id: str
    owner: str
    attempts: int
    payload: dict[str, Any]
    target: Target


def queue_pushes(session: Session, people: Iterable[str], payload: dict[str, Any]) -> None:
    """In the mail's own transaction: one job for each subscription of these people."""
    names = list(dict.fromkeys(people))
    if not names:
        return
    ids = session.scalars(
        select(PushSubscription.id).where(PushSubscription.owner.in_(names))
    ).all()
    if ids:
        now = utcnow()
        rows = [
            {
                "subscription_id": i,
                "payload": payload,
                "attempts": 0,
                "due_at": now,
                "created_at": now,
            }
            for i in ids
        ]
        session.execute(insert(_JOBS), rows)
        wake_after_commit(session, [WAKE])


def any_due(session: Session, now: datetime) -> bool:
    return leases.any_due(session, _JOBS, now)


def next_due(session: Session) -> datetime | None:
    return leases.next_due(session, _JOBS)


def claim(session: Session, now: datetime, limit: int) -> list[Claimed]:
    """Take up to `limit` due jobs for this replica, each counted as one attempt."""
    taken = leases.claim_due(session, _JOBS, now, limit, LEASE)
    if not taken:
        return []
    closed = _no_longer_open(session, [row.payload for row in taken])
    if closed:  # decided or expired before this round: nothing left to ask for
        stale = [row.id for row in taken if row.payload.get("mail_id") in closed]
        session.execute(delete(_JOBS).where(_JOBS.c.id.in_(stale)))
        taken = [row for row in taken if row.payload.get("mail_id") not in closed]
    subscriptions = {
        row.id: row
        for row in session.scalars(
            select(PushSubscription).where(
                PushSubscription.id.in_({job.subscription_id for job in taken})
            )
        )
    }
    claimed = []
    for job_id, subscription_id, attempts, payload in (
        (row.id, row.subscription_id, row.attempts, row.payload) for row in taken
    ):
        sub = subscriptions.get(subscription_id)
        if sub is not None:
            target = Target(sub.endpoint, sub.p256dh, sub.auth)
            claimed.append(Claimed(job_id, subscription_id, sub.owner, attempts, payload, target))
    return claimed


def _no_longer_open(session: Session, payloads: list[dict[str, Any]]) -> set[str]:
    """The permission requests among these pushes that were decided or expired since
    the push was queued: a notification for one would ask for what is settled."""
    asked = {p["mail_id"] for p in payloads if p.get("kind") == "permission_request"}
    if not asked:
        return set()
    query = select(Mail.id).where(Mail.id.in_(asked), Mail.permission_state != "open")
    return set(session.scalars(query))


def backoff(attempts: int) -> timedelta:
    """5 s after the first failure, doubling, at most 10 minutes."""
    return timedelta(seconds=min(600, 5 * 2 ** (attempts - 1)))


def settle(session: Session, results: list[tuple[Claimed, Outcome]], now: datetime) -> None:
    """Record what each push came to: done, to be tried again, or its subscription gone."""
    done = [job.job_id for job, outcome in results if outcome in ("sent", "dropped")]
    gone = [job.subscription_id for job, outcome in results if outcome == "gone"]
    for job, outcome in results:
        if outcome == "retry" and job.attempts >= MAX_ATTEMPTS:
            done.append(job.job_id)
        elif outcome == "retry":
            session.execute(
                update(_JOBS)
                .where(_JOBS.c.id == job.job_id)
                .values(due_at=now + backoff(job.attempts), claimed_until=None)
            )
    if gone:  # 404/410: the browser unsubscribed; its other jobs go with it (CASCADE)
        session.execute(delete(_JOBS).where(_JOBS.c.subscription_id.in_(gone)))
        session.execute(delete(PushSubscription).where(PushSubscription.id.in_(gone)))
    if done:
        session.execute(delete(_JOBS).where(_JOBS.c.id.in_(done)))

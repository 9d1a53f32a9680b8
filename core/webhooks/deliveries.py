"""Deliveries after COMMIT: claimed by one replica, settled, given up on, pruned.

A due delivery of an enabled endpoint is claimed with a lease (core/store/leases.py),
so one replica posts it. A failed try is tried again after a backoff that triples
with each try, with jitter (eight tries span about a day by default); a delivery
that failed every try is given up on (`failed`). An endpoint whose deliveries failed
so `disable_after` times in a row is disabled, and its owner told by a
`webhook_disabled` event (their SSE stream); what it was still owed waits, pending,
until it is enabled again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from core.store import leases
from core.store.engine import Store
from core.store.events import emit
from core.store.models import WebhookDelivery, WebhookEndpoint, isoformat, table_of, utcnow

LEASE = timedelta(minutes=2)
_DELIVERIES = table_of(WebhookDelivery)
_ENABLED = select(WebhookEndpoint.id).where(WebhookEndpoint.enabled.is_(True))
_OWED = (_DELIVERIES.c.state == "pending", _DELIVERIES.c.endpoint_id.in_(_ENABLED))


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 8
    base_seconds: float = 60.0  # the first wait; each next one three times longer
    disable_after: int = 20  # deliveries failed in a row

    def backoff(self, attempts: int) -> timedelta:
        wait = self.base_seconds * 3 ** (attempts - 1)
        return timedelta(seconds=wait * random.uniform(0.75, 1.25))


@dataclass(frozen=True, slots=True)
class Claimed:
    delivery_id: int
    endpoint_id: str
    event_id: int
    attempts: int
    payload: dict[str, Any]
    url: str
    sealed_secret: str
    owner: str


@dataclass(frozen=True, slots=True)
class Outcome:
    delivered: bool
    status: int | None = None
    error: str = ""


def any_due(session: Session, now: datetime) -> bool:
    return leases.any_due(session, _DELIVERIES, now, _OWED)


def next_due(session: Session) -> datetime | None:
    return leases.next_due(session, _DELIVERIES, _OWED)


def claim(session: Session, now: datetime, limit: int) -> list[Claimed]:
    taken = leases.claim_due(session, _DELIVERIES, now, limit, LEASE, _OWED)
    if not taken:
        return []
    endpoints = {
        row.id: row
        for row in session.scalars(
            select(WebhookEndpoint).where(WebhookEndpoint.id.in_({t.endpoint_id for t in taken}))
        )
    }
    return [
        Claimed(t.id, t.endpoint_id, t.event_id, t.attempts, t.payload, e.url, e.secret, e.owner)
        for t in taken
        if (e := endpoints.get(t.endpoint_id)) is not None
    ]


def settle(
    session: Session, results: list[tuple[Claimed, Outcome]], policy: RetryPolicy, now: datetime
) -> None:
    """Record each try; count the endpoints' failures in a row, and disable at the limit."""
    for job, outcome in results:
        values: dict[str, Any] = {
            "claimed_until": None,
            "last_status": outcome.status,
            "last_error": outcome.error[:200],
        }
        if outcome.delivered or job.attempts >= policy.max_attempts:
            values.update(state="delivered" if outcome.delivered else "failed", finished_at=now)
            _count(session, job.endpoint_id, outcome.delivered, policy, now)
        else:
            values["due_at"] = now + policy.backoff(job.attempts)
        session.execute(
            update(_DELIVERIES).where(_DELIVERIES.c.id == job.delivery_id).values(**values)
        )


def _count(
    session: Session, endpoint_id: str, delivered: bool, policy: RetryPolicy, now: datetime
) -> None:
    endpoint = session.scalar(
        select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).with_for_update()
    )
    if endpoint is None:  # deleted meanwhile
        return
    if delivered:
        endpoint.failures = 0
        return
    endpoint.failures += 1
    if endpoint.enabled and endpoint.failures >= policy.disable_after:
        endpoint.enabled = False
        endpoint.disabled_reason = f"{endpoint.failures} deliveries in a row failed"
        emit(
            session,
            [endpoint.owner],
            "webhook_disabled",
            {
                "webhook_id": endpoint.id,
                "url": endpoint.url,
                "reason": endpoint.disabled_reason,
                "disabled_at": isoformat(now),
            },
        )


async def prune_deliveries(store: Store, retention: timedelta) -> int:
    """Forget finished deliveries older than the retention (as events are pruned)."""
    cutoff = utcnow() - retention

    def run(session: Session) -> int:
        result = session.execute(
            delete(WebhookDelivery).where(
                WebhookDelivery.state != "pending", WebhookDelivery.created_at < cutoff
            )
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    return await store.write(run)

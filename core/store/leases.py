"""Job queues in a table, claimed by one replica at a time with a lease.

A job row (an `id`, `attempts`, `due_at`, `claimed_until`) is written in the
transaction of the change it follows up, so a job exists for every committed change
and for none that rolled back. After COMMIT any replica may claim due jobs: `FOR
UPDATE SKIP LOCKED` on PostgreSQL lets replicas claiming at once take different rows;
SQLite has one writer, and the claim is one atomic UPDATE (it ignores the locking
clause). A claim is a lease: a replica that dies mid-job leaves the job to be claimed
again when the lease ends. `next_due` says when the next job falls due, so that a
sender with nothing to do sleeps until then (or until a commit queues one) instead of
asking again every second. Web Push (core/push/jobs.py), webhook deliveries
(core/webhooks/deliveries.py) and outbound mail (core/outbound/queue.py) share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, Table, case, func, or_, select, update
from sqlalchemy.orm import Session

__all__ = ["any_due", "claim_due", "next_due"]


def _due(table: Table, now: datetime) -> tuple[ColumnElement[bool], ...]:
    return (
        table.c.due_at <= now,
        or_(table.c.claimed_until.is_(None), table.c.claimed_until < now),
    )


def any_due(
    session: Session, table: Table, now: datetime, where: Sequence[ColumnElement[bool]] = ()
) -> bool:
    """A cheap read first: most rounds find nothing and write nothing."""
    found = session.scalar(select(table.c.id).where(*_due(table, now), *where).limit(1))
    return found is not None


def next_due(
    session: Session, table: Table, where: Sequence[ColumnElement[bool]] = ()
) -> datetime | None:
    """When the next job may be claimed: its `due_at`, or its lease's end if later;
    None when there is no job."""
    claimable_at = case(
        (table.c.claimed_until > table.c.due_at, table.c.claimed_until), else_=table.c.due_at
    )
    found: datetime | None = session.scalar(select(func.min(claimable_at)).where(*where))
    return found


def claim_due(
    session: Session,
    table: Table,
    now: datetime,
    limit: int,
    lease: timedelta,
    where: Sequence[ColumnElement[bool]] = (),
) -> list[Row[Any]]:
    """Take up to `limit` due jobs for this replica until `now + lease`, each counted as
    one attempt; their whole rows, oldest first."""
    chosen = (
        select(table.c.id)
        .where(*_due(table, now), *where)
        .order_by(table.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    taken = session.execute(
        update(table)
        .where(table.c.id.in_(chosen.scalar_subquery()))
        .values(claimed_until=now + lease, attempts=table.c.attempts + 1)
        .returning(*table.c)
    ).all()
    return sorted(taken, key=lambda row: row.id)

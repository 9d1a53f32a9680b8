"""Job rows claimed by one replica at a time, with a lease (Web Push jobs, webhook deliveries).

A job table has `id`, `attempts`, `due_at` and `claimed_until` columns. Any replica may
claim due rows: `FOR UPDATE SKIP LOCKED` on PostgreSQL lets replicas claiming at once
take different rows; SQLite has one writer, and the claim is one atomic UPDATE (it
ignores the locking clause). A claim is a lease: a replica that dies mid-send leaves
the row to be claimed again when the lease ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Table, or_, select, update
from sqlalchemy.orm import Session


def due(jobs: Table, now: datetime) -> tuple[ColumnElement[bool], ...]:
    """Due and not under another replica's lease."""
    return (
        jobs.c.due_at <= now,
        or_(jobs.c.claimed_until.is_(None), jobs.c.claimed_until < now),
    )


def any_due(
    session: Session, jobs: Table, now: datetime, where: Sequence[ColumnElement[bool]] = ()
) -> bool:
    """A cheap read first: most rounds find nothing and write nothing."""
    found = select(jobs.c.id).where(*due(jobs, now), *where).limit(1)
    return session.scalar(found) is not None


def claim_due(
    session: Session,
    jobs: Table,
    now: datetime,
    *,
    limit: int,
    lease: timedelta,
    returning: Sequence[str],
    where: Sequence[ColumnElement[bool]] = (),
) -> list[tuple[Any, ...]]:
    """Take up to `limit` due rows (`where` narrows them) for this replica, each counted as
    one attempt; the `returning` columns of each, by id."""
    chosen = (
        select(jobs.c.id)
        .where(*due(jobs, now), *where)
        .order_by(jobs.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    taken = session.execute(
        update(jobs)
        .where(jobs.c.id.in_(chosen.scalar_subquery()))
        .values(claimed_until=now + lease, attempts=jobs.c.attempts + 1)
        .returning(*(jobs.c[name] for name in returning))
    ).all()
    return sorted((tuple(row) for row in taken), key=lambda row: row[0])

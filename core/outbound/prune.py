"""Settled outbound jobs forgotten once nothing needs them (the gateway's hourly prune).

A job settled `failed` or `expired` has had its notice and counts in no limit: it goes
after the rate-limit window. A `sent` (or `bounced`) one counts in the hourly limits
and is what a bounce is matched to (core/relay/bounce_record.py), and a bounce can come
days later: a server that took the mail and cannot pass it on retries for about five
days before it reports (RFC 5321 §4.5.4.1). Those go after `BOUNCE_WINDOW`. A queued
job is never pruned.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import and_, delete, or_
from sqlalchemy.orm import Session

from core.outbound.queue import RATE_WINDOW, SENT
from core.store.engine import Store
from core.store.models import OutboundJob, table_of, utcnow

__all__ = ["BOUNCE_WINDOW", "prune_outbound_jobs"]

BOUNCE_WINDOW: Final = timedelta(days=7)
_JOBS = table_of(OutboundJob)


async def prune_outbound_jobs(store: Store, now: datetime | None = None) -> int:
    """Delete the settled jobs past their keeping; how many went."""
    at = now or utcnow()
    kept_sent = max(RATE_WINDOW, BOUNCE_WINDOW)

    def run(session: Session) -> int:
        result = session.execute(
            delete(_JOBS).where(
                or_(
                    and_(_JOBS.c.state.in_(SENT), _JOBS.c.settled_at < at - kept_sent),
                    and_(
                        _JOBS.c.state.in_(("failed", "expired")),
                        _JOBS.c.settled_at < at - RATE_WINDOW,
                    ),
                )
            )
        )
        return int(result.rowcount)  # type: ignore[attr-defined]

    return await store.write(run)

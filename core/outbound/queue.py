"""The outbound queue: one job per outside recipient, written with the mail, sent by one
replica at a time (the lease of core/store/leases.py), settled by the smarthost's reply.
A commit that queues jobs wakes the senders of every replica (`WAKE`).

Delivery is at least once: a replica killed after the smarthost's `250` and before
the job is settled leaves it to be sent again when its lease ends, with the same
Message-ID, so the receiving side can tell the copies apart (RFC 5321 §4.5.4.1 asks
senders to avoid duplicates; a lease longer than every SMTP timeout keeps two
replicas from sending one job at once).

A job is settled `sent`; after a `4xx` or a network error tried again by the schedule
`retry_delay`; `failed` after a `5xx`; `expired` when the next try would fall past the
give-up time; `bounced` when a report came back after it was sent
(core/relay/bounce_record.py). Settled rows stay for the hourly rate limits, and sent
ones as long as a bounce may come back for them (core/outbound/prune.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from core.store import leases
from core.store.engine import wake_after_commit
from core.store.models import OutboundJob, table_of, utcnow

__all__ = [
    "BOUNCED",
    "SENT",
    "WAKE",
    "Claimed",
    "Outcome",
    "Rates",
    "any_due",
    "claim",
    "enqueue_outbound",
    "next_due",
    "pending_count",
    "retry_delay",
    "settle",
]

Outcome = Literal["sent", "retry", "refused"]
RATE_WINDOW = timedelta(hours=1)
RATE_WAIT = timedelta(minutes=1)  # a job over a rate limit looks again this much later
MAX_ERROR = 1000
BOUNCED = "bounced"  # sent, then reported undeliverable by a bounce
SENT = ("sent", BOUNCED)  # what the rate limits count
WAKE = "!outbound"  # the senders' wake-up: a name no person has (core/store/bus.py)
_JOBS = table_of(OutboundJob)
_QUEUED = (_JOBS.c.state == "queued",)


@dataclass(frozen=True, slots=True)
class Claimed:
    job_id: int
    mail_id: str
    sender: str
    recipient: str
    recipient_domain: str
    envelope_sender: str
    attempts: int
    first_queued_at: datetime


@dataclass(frozen=True, slots=True)
class Rates:
    """Outside recipients an hour: per sender, and per recipient domain from everyone."""

    per_sender: int
    per_domain: int


def enqueue_outbound(
    session: Session, mail_id: str, sender: str, envelope_sender: str, recipients: Sequence[str]
) -> None:
    """In the mail's own transaction: one job per outside recipient (mailboxes already
    checked by core/address/mailto.py), due now."""
    now = utcnow()
    rows = [
        {
            "mail_id": mail_id,
            "sender": sender,
            "recipient": recipient,
            "recipient_domain": recipient.rpartition("@")[2],
            "envelope_sender": envelope_sender,
            "state": "queued",
            "attempts": 0,
            "due_at": now,
            "first_queued_at": now,
            "last_error": "",
        }
        for recipient in dict.fromkeys(recipients)
    ]
    if rows:
        session.execute(insert(_JOBS), rows)
        wake_after_commit(session, [WAKE])


def any_due(session: Session, now: datetime) -> bool:
    return leases.any_due(session, _JOBS, now, _QUEUED)


def next_due(session: Session) -> datetime | None:
    return leases.next_due(session, _JOBS, _QUEUED)


def _sent_in_window(session: Session, column: str, values: set[str], now: datetime) -> Counter[str]:
    col = _JOBS.c[column]
    rows = session.execute(
        select(col, func.count())
        .where(
            col.in_(values),
            _JOBS.c.state.in_(SENT),
            _JOBS.c.settled_at > now - RATE_WINDOW,
        )
        .group_by(col)
    ).all()
    return Counter({value: count for value, count in rows})


def claim(
    session: Session, now: datetime, limit: int, rates: Rates, lease: timedelta
) -> list[Claimed]:
    """Take up to `limit` due jobs until `now + lease` (longer than any delivery may
    take: core/relay/smarthost.py), each one attempt; those over a rate limit are handed
    back untried (their attempt not counted) to look again in a minute: over the limit a
    job waits, it is never dropped."""
    rows = leases.claim_due(session, _JOBS, now, limit, lease, _QUEUED)
    if not rows:
        return []
    by_sender = _sent_in_window(session, "sender", {r.sender for r in rows}, now)
    by_domain = _sent_in_window(
        session, "recipient_domain", {r.recipient_domain for r in rows}, now
    )
    ready: list[Claimed] = []
    waiting: list[int] = []
    for r in rows:
        if (
            by_sender[r.sender] >= rates.per_sender
            or by_domain[r.recipient_domain] >= rates.per_domain
        ):
            waiting.append(r.id)
            continue
        by_sender[r.sender] += 1
        by_domain[r.recipient_domain] += 1
        ready.append(
            Claimed(
                r.id,
                r.mail_id,
                r.sender,
                r.recipient,
                r.recipient_domain,
                r.envelope_sender,
                r.attempts,
                r.first_queued_at,
            )
        )
    if waiting:
        session.execute(
            update(_JOBS)
            .where(_JOBS.c.id.in_(waiting))
            .values(attempts=_JOBS.c.attempts - 1, claimed_until=None, due_at=now + RATE_WAIT)
        )
    return ready


def retry_delay(attempts: int, minimum: timedelta) -> timedelta:
    """The wait after the `attempts`-th failed try: `minimum`, then doubling, at most four
    times it. RFC 5321 §4.5.4.1: at least 30 minutes between tries (the default
    minimum), a schedule that backs off, giving up after 4-5 days."""
    factor: int = 2 ** min(max(attempts, 1) - 1, 2)
    return minimum * factor


def settle(
    session: Session,
    results: Sequence[tuple[Claimed, Outcome, str]],
    now: datetime,
    *,
    give_up: timedelta,
    minimum: timedelta,
) -> list[tuple[Claimed, str, str]]:
    """Record each try's end; the jobs that ended undelivered (`failed` or `expired`),
    with their state and the reply that ended them, for the sender's notice. A job
    settled meanwhile (by another replica after a lost lease) is left as it is."""
    ended: list[tuple[Claimed, str, str]] = []
    for job, outcome, reply in results:
        values: dict[str, object] = {"claimed_until": None, "last_error": reply[:MAX_ERROR]}
        if outcome == "sent":
            values.update(state="sent", settled_at=now, last_error="")
        elif outcome == "refused":
            values.update(state="failed", settled_at=now)
        else:
            due = now + retry_delay(job.attempts, minimum)
            if due > job.first_queued_at + give_up:
                values.update(state="expired", settled_at=now)
            else:
                values.update(due_at=due)
        changed = session.execute(
            update(_JOBS).where(_JOBS.c.id == job.job_id, *_QUEUED).values(**values)
        )
        if changed.rowcount and values.get("state") in ("failed", "expired"):  # type: ignore[attr-defined]
            ended.append((job, str(values["state"]), reply))
    return ended


def pending_count(session: Session) -> int:
    """Jobs still queued (the doctor's and the tests' view of the queue)."""
    return session.scalar(select(func.count()).select_from(_JOBS).where(*_QUEUED)) or 0

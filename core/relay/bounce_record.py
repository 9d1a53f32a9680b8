"""A bounce (core/relay/bounces.py) recorded: the job it is about marked `bounced`, and
one postmaster notice to the mail's sender, the same notice a `5xx` gets
(core/relay/notices.py).

The job is found by the envelope id (`<mail id>.<job id>`: the bounce address or ENVID),
else by the original Message-ID and the failed recipient's address. A `sent` job is
marked, and one whose delivery is in flight (claimed, still `queued`): the far side may
take the mail and report it undeliverable before this replica has recorded its `250`,
and that sender's settle then leaves the `bounced` job as it is (core/outbound/queue.py
settles only queued jobs). One conditional update marks it, so a second report for the
same recipient (from another server, or the same one again) writes nothing; a bounce
that names no job of ours writes nothing either; a job not yet tried or waiting for its
retry is not marked (nothing was taken that could bounce). A `bounced` job still counts
in the hourly rate limits (it was sent) and is pruned as a sent one is
(core/outbound/prune.py).
"""

from __future__ import annotations

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from core.outbound.queue import BOUNCED, MAX_ERROR
from core.relay.bounces import Bounce, FailedRecipient
from core.relay.notices import notify_undeliverable
from core.store.engine import Store
from core.store.models import Mail, OutboundJob, utcnow

__all__ = ["record_bounce"]

# Sent, or taken by a sender that has not recorded the answer yet.
_BOUNCEABLE = or_(
    OutboundJob.state == "sent",
    and_(OutboundJob.state == "queued", OutboundJob.claimed_until.is_not(None)),
)


def _jobs(session: Session, bounce: Bounce) -> list[tuple[OutboundJob, FailedRecipient]]:
    """The sent jobs the bounce is about, each with the failure that names it."""
    by_address = {failure.address.lower(): failure for failure in bounce.recipients}
    if bounce.envelope_id is not None:
        job = session.scalar(
            select(OutboundJob).where(
                OutboundJob.id == bounce.envelope_id.job_id,
                OutboundJob.mail_id == bounce.envelope_id.mail_id,
            )
        )
        if job is None:
            return []
        # One recipient per envelope: whatever address the report names, it is this job's.
        return [(job, by_address.get(job.recipient.lower(), bounce.recipients[0]))]
    if not bounce.message_id:
        return []
    mail_id = session.scalar(select(Mail.id).where(Mail.message_id == bounce.message_id).limit(1))
    if mail_id is None:
        return []
    jobs = session.scalars(
        select(OutboundJob).where(
            OutboundJob.mail_id == mail_id,
            func.lower(OutboundJob.recipient).in_(list(by_address)),
        )
    )
    return [(job, by_address[job.recipient.lower()]) for job in jobs]


async def record_bounce(store: Store, bounce: Bounce, domain: str) -> int:
    """Mark the jobs `bounce` reports failed and tell each one's sender, once; the number
    of notices written (0 for a bounce already recorded or not about our mail)."""

    now = utcnow()

    def run(session: Session) -> int:
        written = 0
        for job, failure in _jobs(session, bounce):
            reply = failure.describe()
            changed = session.execute(
                update(OutboundJob)
                .where(OutboundJob.id == job.id, _BOUNCEABLE)
                .values(
                    state=BOUNCED,
                    last_error=reply[:MAX_ERROR],
                    claimed_until=None,
                    settled_at=func.coalesce(OutboundJob.settled_at, now),
                )
            )
            if not changed.rowcount:  # type: ignore[attr-defined]
                continue
            notify_undeliverable(
                session,
                domain,
                mail_id=job.mail_id,
                sender=job.sender,
                recipient=job.recipient,
                reply=reply,
                why="bounced",
            )
            written += 1
        return written

    return await store.write(run)

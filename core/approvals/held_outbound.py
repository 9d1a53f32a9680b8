"""A held outside mail settled by its permission request's end (core/mail/outside_hold.py).

Every way a request ends goes through `settle_held`, inside the transaction that ends
it: the web UI's button and a reply by mail (both `decide_in`), and the expiry sweep.
`approve` queues the held recipients (core/outbound/queue.py, the mail's stored
Message-ID as always); any other option, an expiry, or an agent whose outbound mail an
admin withdrew meanwhile, refuses them: the mail never leaves.

Exactly once: the request row is locked and decided once (a second decision is
`409 already_decided`), and the hold moves from `held` only by a conditional update,
so two replicas racing, or a decision repeated, can never queue its jobs twice.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.mail.outside_hold import APPROVE
from core.outbound.queue import enqueue_outbound
from core.store.models import Agent, HeldOutbound, Mail, table_of, utcnow

__all__ = ["settle_held"]

_HELD = table_of(HeldOutbound)


def settle_held(session: Session, request: Mail) -> None:
    """Release or refuse the hold behind `request`, if there is one."""
    hold = session.execute(
        select(
            _HELD.c.id, _HELD.c.mail_id, _HELD.c.sender, _HELD.c.envelope_sender, _HELD.c.recipients
        ).where(_HELD.c.request_id == request.id, _HELD.c.state == "held")
    ).first()
    if hold is None:
        return
    approved = request.permission_state == "decided" and request.decision == APPROVE
    still_allowed = bool(
        session.scalar(select(Agent.outbound_mail).where(Agent.name == hold.sender))
    )
    release = approved and still_allowed
    moved = session.execute(
        update(_HELD)
        .where(_HELD.c.id == hold.id, _HELD.c.state == "held")
        .values(state="released" if release else "refused", settled_at=utcnow())
    )
    if release and moved.rowcount == 1:  # type: ignore[attr-defined]
        enqueue_outbound(
            session, hold.mail_id, hold.sender, hold.envelope_sender, list(hold.recipients)
        )

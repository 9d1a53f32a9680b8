"""The outside mark of one mail: what the MX listener (or the reply mailbox) found of a
mail it stored from outside, read with the mail itself so a reader never sees the mail
without the mark (the human sees "not verified: it decided nothing", and why).

A reason is stored as English (core/replies/inbound.py); `reason_code` names it by a
stable word a client can say in its own language.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.mail.reading import one_mail
from core.principal import Principal
from core.replies.inbound import (
    ADDRESS_GONE,
    ALREADY_USED,
    NO_DOMAIN_PROOF,
    NOT_A_REPLY,
    OTHER_ADDRESS,
    VERIFIED,
)
from core.store.engine import Store
from core.store.models import OutsideReply
from core.views import MailView, OutsideMark, OutsideReason

__all__ = ["get_marked_mail", "outside_mark", "reason_code"]

# A reason starts with its constant (the domain proof's adds `: dmarc=…`).
_CODES: Final[tuple[tuple[str, OutsideReason], ...]] = (
    (VERIFIED, "verified"),
    (OTHER_ADDRESS, "other_address"),
    (NO_DOMAIN_PROOF, "no_domain_proof"),
    (ALREADY_USED, "already_used"),
    (ADDRESS_GONE, "address_gone"),
    (NOT_A_REPLY, "not_a_reply"),
)


def reason_code(reason: str) -> OutsideReason:
    for text, code in _CODES:
        if reason == text or reason.startswith(text + ":"):
            return code
    return "other"


def outside_mark(session: Session, mail_id: str) -> OutsideMark | None:
    """The mark of `mail_id`, or None for a mail that did not come in from outside."""
    row = session.scalar(select(OutsideReply).where(OutsideReply.mail_id == mail_id))
    if row is None:
        return None
    code = reason_code(row.reason)
    return OutsideMark(
        sender=row.sender,
        verified=code == "verified",
        decided=row.decided,
        reason=row.reason,
        reason_code=code,
        authentication_results=row.authentication_results,
    )


async def get_marked_mail(
    store: Store, domain: str, principal: Principal, mail_id: str
) -> MailView:
    """One mail (core/mail/reading.py) with its outside mark, in one read."""

    def run(session: Session) -> MailView:
        view = one_mail(session, domain, principal, mail_id)
        return view.model_copy(update={"outside": outside_mark(session, mail_id)})

    return await store.read(run)

"""The postmaster's notice to the sender of a mail a recipient did not get: one mail in
the conversation of the mail that failed (core/approvals/postmaster.py), naming the
recipient and the last reply. Written for a `5xx`, for a job given up on, and for a
bounce (a DSN) that came back after the mail had left."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.approvals.postmaster import MAX_SUBJECT, write_notice
from core.store.models import Mail

__all__ = ["Why", "notify_undeliverable", "undeliverable_notice"]

Why = Literal["refused", "given_up", "bounced"]
_REASONS: dict[Why, str] = {
    "refused": "The receiving side refused it for good.",
    "given_up": "The smarthost kept deferring it, and the gateway has stopped trying.",
    "bounced": "It left the gateway, and a server further on reported that it could not"
    " deliver it (a delivery status notification).",
}


def undeliverable_notice(subject: str, recipient: str, reply: str, why: Why) -> tuple[str, str]:
    """Subject and body of the notice to the sender of a mail a recipient did not get."""
    body = (
        f'Your mail "{subject}" could not be delivered to {recipient}.\n\n{_REASONS[why]}\n\n'
        f"The server's last reply:\n    {' '.join(reply.split())}\n"
    )
    return f"Undeliverable: {subject}"[:MAX_SUBJECT], body


def notify_undeliverable(
    session: Session,
    domain: str,
    *,
    mail_id: str,
    sender: str,
    recipient: str,
    reply: str,
    why: Why,
) -> None:
    """The notice, to `sender`, in the conversation of the mail `mail_id` (none when the
    mail is gone)."""
    row = session.execute(select(Mail.session_id, Mail.subject).where(Mail.id == mail_id)).first()
    if row is None:
        return
    subject, body = undeliverable_notice(row.subject, recipient, reply, why)
    write_notice(
        session,
        domain,
        to=sender,
        conversation_id=row.session_id,
        parent_id=mail_id,
        subject=subject,
        body=body,
    )

"""Notices the gateway itself sends, signed `postmaster@<domain>` (RFC 5321 §4.5.1).

A notice is a mail in a conversation, delivered to one human only: no agent
receives it or its `new_mail` event, and the postmaster takes part in no
conversation (it is not added to the participants, it spends no budget and
changes no status). The name is reserved (core/identity/accounts.py), so no user or
agent can send as it. Notices carry `auto` (rendered as `Auto-Submitted:
auto-generated`, RFC 3834 §5), so vacation responders leave them alone.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import POSTMASTER, Address, party_address
from core.mail.excerpt import excerpt_values
from core.store.events import emit
from core.store.models import Conversation, Delivery, Mail, isoformat, new_id, utcnow

__all__ = ["NOTICE", "already_settled_notice", "write_notice"]

NOTICE = "notice"  # the mail_type of a postmaster notice
MAX_SUBJECT = 998  # the column's size (RFC 5322 §2.1.1 line limit)


def write_notice(
    session: Session,
    domain: str,
    *,
    to: str,
    conversation_id: str,
    parent_id: str | None,
    subject: str,
    body: str,
) -> Mail:
    """Store a notice from the postmaster to the human `to`, and tell them (`new_mail`)."""
    now = utcnow()
    mail_id = new_id()
    mail = Mail(
        id=mail_id,
        session_id=conversation_id,
        parent_id=parent_id,
        from_name=POSTMASTER,
        from_path="",
        to_name=to,
        to_path="",
        cc=[],
        subject=subject,
        body=body,
        **excerpt_values(body),
        mail_type=NOTICE,
        auto=True,
        hops=0,
        message_id=f"<{mail_id}@{domain}>",
        created_at=now,
    )
    session.add(mail)
    session.flush()
    session.add(Delivery(mail_seq=mail.seq, recipient=to, kind="to", created_at=now))
    alias = session.scalar(select(Conversation.alias).where(Conversation.id == conversation_id))
    sender = party_address(POSTMASTER, "", alias)
    recipient = Address(to, "", alias)
    emit(
        session,
        [to],
        "new_mail",
        {  # the fields of every new_mail event (core/mail/send.py)
            "mail_id": mail_id,
            "session_id": conversation_id,
            "session_alias": alias,
            "from": sender.native(),
            "from_email": sender.email(domain),
            "to": recipient.native(),
            "cc": [],
            "auto": True,
            "subject": subject,
            "mail_type": NOTICE,
            "created_at": isoformat(now),
        },
    )
    return mail


def already_settled_notice(request: Mail) -> tuple[str, str]:
    """Subject and body telling a human their reply did not decide `request`: what was
    decided, by whom and when, or when it expired."""
    lead = f'Your reply to the permission request "{request.subject}" did not decide it:'
    if request.permission_state == "decided":
        when = isoformat(request.decided_at) if request.decided_at is not None else "earlier"
        lines = [
            f"{lead} it had already been decided.",
            "",
            f"Decision: {request.decision}",
            f"Decided by: {request.decided_by}",
            f"Decided at: {when}",
        ]
        if request.decision_note:
            lines.append(f"Note: {' '.join(request.decision_note.split())}")
        subject = f"Already decided: {request.subject}"
    else:  # expired, or past its expiry before the sweep marked it
        when = isoformat(request.expires_at) if request.expires_at is not None else "earlier"
        lines = [f"{lead} it expired at {when} without a decision."]
        subject = f"Expired: {request.subject}"
    lines += ["", "Your reply is kept in the conversation as an ordinary reply."]
    return subject[:MAX_SUBJECT], "\n".join(lines) + "\n"

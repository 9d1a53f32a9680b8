"""An agent's mail to outside recipients not on its allowlist: stored, held, and asked
about.

The mail is stored in its conversation as any mail (the agent sees what it sent; it
keeps its Message-ID), its allowed outside recipients are queued at once, and the
others are held (a `held_outbound` row) behind one permission request "send this mail
to x@y?" from the agent to the humans of the conversation, showing the whole mail.
Both are written in the mail's own transaction. Approved, the held recipients are
queued in the decision's transaction, once (core/approvals/held_outbound.py);
rejected or expired, the mail never leaves. The agent learns the outcome from the
`permission_decision` event every permission request's sender gets.

Who is asked: the humans taking part in the conversation (the one who opened it
decides, the others are copied); in a conversation without a human (an agent that
mailed `mailto:` first) the admins, who set the allowlists.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.address.mailto import MAILTO
from core.errors import OutboundNotAllowed
from core.identity.external import stored_party
from core.mail.conversations import participants
from core.mail.new_mail import Permission
from core.mail.outside import Outside
from core.mail.subjects import MAX_SUBJECT
from core.store.models import Attachment, Conversation, HeldOutbound, Mail, User, table_of, utcnow
from core.views import HeldRecipients, SendResult

__all__ = ["APPROVE", "HOLD_EXPIRES", "HOLD_OPTIONS", "HeldAsk", "hold_for_decision"]

APPROVE: Final = "approve"
HOLD_OPTIONS: Final = (APPROVE, "reject")
HOLD_EXPIRES: Final = timedelta(days=7)  # undecided by then: expired, never sent
MAX_ASKED: Final = 50  # the request's `to` and cc (core/mail/send.py's MAX_CC)
_HELD = table_of(HeldOutbound)


@dataclass(frozen=True, slots=True)
class HeldAsk:
    """The permission request to write for a held mail (core/mail/send.py writes it)."""

    to: str
    cc: list[str]
    question: str
    body: str
    action: str


def _deciders(session: Session, conversation_id: str) -> list[str]:
    """The humans to ask, the decider first."""
    names = participants(session, conversation_id)
    humans = set(session.scalars(select(User.name).where(User.name.in_(names))).all())
    opener = session.scalar(
        select(Conversation.created_by).where(Conversation.id == conversation_id)
    )
    asked = sorted(humans, key=lambda name: (name != opener, name))
    if not asked:
        admins = session.scalars(select(User.name).where(User.is_admin.is_(True)))
        asked = sorted(admins.all())
    if not asked:
        raise OutboundNotAllowed(
            "the mail's outside recipients are not on the agent's allowlist and there is"
            " no human to ask (no human in the conversation, no admin)"
        )
    return asked[:MAX_ASKED]


def _shown(mail: Mail, attachments: Sequence[str]) -> str:
    """The whole mail as the human decides on it."""
    lines = [
        f"From: {stored_party(mail.from_name, mail.from_path, None).native()}",
        f"To: {stored_party(mail.to_name, mail.to_path, None).native()}",
    ]
    if mail.cc:
        lines.append("Cc: " + ", ".join(mail.cc))
    lines.append(f"Subject: {mail.subject}")
    if attachments:
        lines.append("Attachments: " + ", ".join(attachments))
    return "\n".join([*lines, "", mail.body])


def _held_ask(session: Session, mail_id: str, held: Sequence[str]) -> HeldAsk:
    """The request for a stored mail whose outside recipients `held` wait."""
    mail = session.scalars(select(Mail).where(Mail.id == mail_id)).one()
    names = session.scalars(
        select(Attachment.filename).where(Attachment.mail_seq == mail.seq).order_by(Attachment.id)
    )
    outside = ", ".join(held)
    question = f"Send this mail to {outside}?"
    if len(question) > MAX_SUBJECT:
        question = f"Send this mail to {len(held)} outside recipients?"
    intro = (
        f"{mail.from_name} wants to send the mail below outside the gateway to {outside}:"
        " the address is not on its allowlist. Approve and it is sent (once); reject, or"
        f" leave it undecided for {HOLD_EXPIRES.days} days, and it never leaves."
    )
    asked = _deciders(session, mail.session_id)
    return HeldAsk(
        to=asked[0] + "@",
        cc=[name + "@" for name in asked[1:]],
        question=question,
        body=intro + "\n\n---\n" + _shown(mail, list(names.all())),
        action=f"send mail {mail.message_id} to {outside}",
    )


def hold_for_decision(
    session: Session,
    sent: SendResult,
    outside: Outside,
    domain: str,
    write_request: Callable[[HeldAsk, Permission], SendResult],
) -> SendResult:
    """Ask about a stored mail's held recipients and hold them; the send's answer says
    which wait, and for which request. `write_request` writes the request through the
    one write path (core/mail/send.py), as a mail of the agent's that spends no round."""
    ask = _held_ask(session, sent.mail_id, outside.held)
    permission = Permission(
        list(HOLD_OPTIONS),
        utcnow() + HOLD_EXPIRES,
        ask.action,
        hashlib.sha256(ask.action.encode("utf-8")).hexdigest(),
    )
    asked = write_request(ask, permission)
    session.execute(
        insert(_HELD).values(
            mail_id=sent.mail_id,
            request_id=asked.mail_id,
            sender=outside.sender.name,
            envelope_sender=outside.envelope_sender(domain),
            recipients=list(outside.held),
            state="held",
        )
    )
    held = HeldRecipients(recipients=[MAILTO + r for r in outside.held], request_id=asked.mail_id)
    return sent.model_copy(update={"held": held})

"""A send's outside recipients: checked before the mail is written, queued with it.

A mail to `mailto:` recipients is stored in its conversation as any mail (the outside
recipients get no delivery row: nobody logs in as them) and, in the same transaction,
one outbound job per outside recipient (core/outbound/queue.py), so a committed mail
is never without its jobs. Only a sender an admin enabled may address them, on a
gateway with a smarthost; otherwise the send is refused before anything is written.
An agent's recipients that its allowlist does not name (core/outbound/allowlist.py)
are `held` instead: core/mail/outside_hold.py asks a human.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from core.address import Address
from core.identity.endpoints import Endpoint
from core.identity.external import is_external
from core.outbound.allowed import check_outbound_allowed
from core.outbound.allowlist import allows, read_allowlist
from core.outbound.queue import enqueue_outbound
from core.settings import Limits

__all__ = ["Outside", "send_outside"]


@dataclass(frozen=True, slots=True)
class Outside:
    sender: Endpoint
    recipients: tuple[str, ...]
    held: tuple[str, ...] = ()  # an agent's, off its allowlist: they wait for a decision

    def envelope_sender(self, domain: str) -> str:
        # MAIL FROM: the sender's own mailbox here (RFC 5321 §4.1.1.2), where a
        # bounce names who sent the mail.
        return Address(self.sender.name).email(domain)

    def enqueue(self, session: Session, mail_id: str, domain: str) -> None:
        if self.recipients:
            envelope = self.envelope_sender(domain)
            enqueue_outbound(session, mail_id, self.sender.name, envelope, self.recipients)


def send_outside(
    session: Session, sender: Endpoint, recipients: Sequence[Endpoint], limits: Limits
) -> Outside:
    """The outside recipients of a send, once the sender may reach them (else raises
    OutboundNotAllowed): those to queue now, and an agent's held ones."""
    outside = tuple(dict.fromkeys(e.workspace for e in recipients if is_external(e)))
    if not outside:
        return Outside(sender, ())
    check_outbound_allowed(
        session, sender.name, is_agent=sender.agent is not None, configured=limits.outbound
    )
    if sender.agent is None:
        return Outside(sender, outside)
    entries = set(read_allowlist(session, sender.name))
    listed = tuple(r for r in outside if allows(entries, r))
    return Outside(sender, listed, tuple(r for r in outside if r not in listed))

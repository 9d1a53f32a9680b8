"""A mail from outside, stored — and a decision only on proof.

A reply to a reply address is stored in the request's conversation as the human's
reply to it (the agent gets it as any reply), with the `Authentication-Results` of its
check and an `outside_replies` row saying whether it decided and why not. It decides
the request (through core/approvals/reply_decision.py, the path of a reply by mail
inside the gateway) only when all hold:

- the token is unused (a replay decides nothing) and its address still registered;
- the From address is exactly the external address the token was issued to;
- the domain is proven (core/replies/proof.py: DMARC pass for the MX listener);
- the request is open (else the postmaster's "already decided"/"expired" notice).

A mail that fails any but the last is stored all the same, marked "not verified, not a
decision" with the reason, and the human gets a postmaster notice saying why.
Mail to a human's own address from their verified address is stored in their INBOX as
a mail to themselves, marked the same way (it decides nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from core.address import party_address
from core.approvals.decide_by_mail import named_option, reply_answer
from core.approvals.postmaster import MAX_SUBJECT, write_notice
from core.approvals.reply_decision import settle_reply
from core.mail.send import SendRequest, mail_writer
from core.mail.subjects import MAX_SUBJECT as MAX_MAIL_SUBJECT
from core.mailauth.verdict import Verdict
from core.principal import Principal
from core.replies.proof import Via, decides, same_mailbox
from core.replies.recipients import Accepted
from core.store.engine import Store
from core.store.models import (
    Conversation,
    ExternalAddress,
    Mail,
    OutsideReply,
    ReplyToken,
    table_of,
    utcnow,
)
from core.store.raw_messages import Original

__all__ = ["OutsideMail", "Stored", "store_collected_mail", "store_outside_mail"]

VERIFIED: Final = "verified"
OTHER_ADDRESS: Final = "the From address is not the external address this reply address was sent to"
NO_DOMAIN_PROOF: Final = "the sender's domain is not proven (no DMARC pass)"
ALREADY_USED: Final = "this reply address has already decided once"
ADDRESS_GONE: Final = "the external address was removed since"
NOT_A_REPLY: Final = "mail to your own address from outside decides nothing"


@dataclass(frozen=True, slots=True)
class OutsideMail:
    """What the listener read of the message (plain values; parsing is the adapter's)."""

    from_addresses: list[str]
    subject: str
    body: str
    message_id: str | None  # None: the gateway gives it one
    original: Original  # the bytes kept, with Authentication-Results on top


@dataclass(frozen=True, slots=True)
class Stored:
    mail_id: str
    decided: bool
    reason: str  # "verified", or why it is not a decision


def _reason(
    session: Session, accepted: Accepted, mail: OutsideMail, verdict: Verdict, via: Via
) -> str:
    if accepted.token_id is None:
        return NOT_A_REPLY
    sender = mail.from_addresses[0] if len(mail.from_addresses) == 1 else ""
    if not same_mailbox(sender, accepted.address):
        return OTHER_ADDRESS
    if not decides(verdict, via):
        return f"{NO_DOMAIN_PROOF}: dmarc={verdict.dmarc}"
    token = session.get(ReplyToken, accepted.token_id)
    address = session.get(ExternalAddress, token.address_id) if token and token.address_id else None
    if address is None or address.verified_at is None or address.address != accepted.address:
        return ADDRESS_GONE
    if token is not None and token.used_at is not None:
        return ALREADY_USED
    return VERIFIED


def _request(accepted: Accepted, session: Session) -> tuple[Mail | None, str | None]:
    if accepted.mail_id is None:
        return None, None
    request = session.scalar(select(Mail).where(Mail.id == accepted.mail_id))
    if request is None:
        return None, None
    alias = session.scalar(select(Conversation.alias).where(Conversation.id == request.session_id))
    return request, alias


def _write(
    session: Session, domain: str, accepted: Accepted, mail: OutsideMail, verdict: Verdict, via: Via
) -> Stored:
    principal = Principal("human", accepted.owner)
    request, alias = _request(accepted, session)
    if request is not None:
        to = party_address(request.from_name, request.from_path, alias).native()
        subject = mail.subject or f"Re: {request.subject}"
    else:
        to, subject = f"{accepted.owner}@", mail.subject
    reason = _reason(session, accepted, mail, verdict, via)
    write = mail_writer(
        domain,
        principal,
        SendRequest(
            to=to,
            subject=subject[:MAX_MAIL_SUBJECT],
            body=mail.body,
            reply_to=request.id if request is not None else None,
        ),
        message_id=mail.message_id,
        raw=mail.original,
    )
    stored = write(session)
    decided = False
    if request is not None and reason == VERIFIED:
        decided = _decide(session, domain, principal, request, accepted, mail.body, stored.mail_id)
    elif request is not None:
        _tell(session, domain, accepted, request, stored.mail_id, reason)
    sender = mail.from_addresses[0] if mail.from_addresses else ""
    session.execute(
        insert(table_of(OutsideReply)).values(
            mail_id=stored.mail_id,
            owner=accepted.owner,
            sender=sender[:254],
            token_id=accepted.token_id,
            decided=decided,
            reason=reason[:200],
            authentication_results=verdict.header(domain)[:2000],
            received_at=utcnow(),
        )
    )
    return Stored(stored.mail_id, decided, reason)


def _decide(
    session: Session,
    domain: str,
    principal: Principal,
    request: Mail,
    accepted: Accepted,
    body: str,
    reply_id: str,
) -> bool:
    """Decide with the token, once: the token is taken in this transaction (a replay,
    or a second reply racing this one, finds it used) only if the reply names an option."""
    answer = reply_answer(body)
    if answer is None or named_option(request.options or [], answer.first_line) is None:
        return False  # an ordinary reply: the token stays unused
    taken = session.execute(
        update(ReplyToken)
        .where(ReplyToken.id == accepted.token_id, ReplyToken.used_at.is_(None))
        .values(used_at=utcnow())
    )
    if not taken.rowcount:  # type: ignore[attr-defined]
        return False
    before = request.permission_state
    settle_reply(session, domain, principal, request.id, answer, reply_id)
    session.refresh(request)
    return before == "open" and request.permission_state == "decided"


def _tell(
    session: Session, domain: str, accepted: Accepted, request: Mail, reply_id: str, reason: str
) -> None:
    """The human's notice: their mail is kept, and it decided nothing, because…"""
    body = (
        f'A mail to the reply address of "{request.subject}" (sent to {accepted.address})'
        " was stored in the conversation, marked not verified: it is not a decision.\n\n"
        f"Why: {reason}.\n\n"
        "To decide, reply from that address itself (its provider must sign it: DKIM,"
        " or send it from its own servers: SPF, aligned with From: DMARC), or decide"
        " in the web UI.\n"
    )
    write_notice(
        session,
        domain,
        to=accepted.owner,
        conversation_id=request.session_id,
        parent_id=reply_id,
        subject=f"Not verified: {request.subject}"[:MAX_SUBJECT],
        body=body,
    )


async def store_outside_mail(
    store: Store, domain: str, accepted: Accepted, mail: OutsideMail, verdict: Verdict, via: Via
) -> Stored:
    """Store `mail` (one transaction: the mail, the decision or the notice, the mark)."""
    return await store.write(lambda s: _write(s, domain, accepted, mail, verdict, via))


async def store_collected_mail(
    store: Store,
    domain: str,
    accepted: Accepted,
    mail: OutsideMail,
    verdict: Verdict,
    claim: Callable[[Session], bool],
) -> Stored | None:
    """Store a reply collected from a mailbox, as `store_outside_mail` does, if `claim`
    (run first, in the same transaction: core/replies/collected.py) says it is not
    taken yet; None: it was, and nothing is written."""

    def write(session: Session) -> Stored | None:
        if not claim(session):
            return None
        return _write(session, domain, accepted, mail, verdict, "imap")

    return await store.write(write)

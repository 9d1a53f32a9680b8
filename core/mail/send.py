"""Sending mail: the one write path every entrance (REST, SMTP, import, bridges) calls.

Budgets, addressing, permission semantics and events therefore behave the same
whichever way a mail comes in. Archived mail (`agentmail import`) has its own mode,
core/mail/imported.py: its senders, times and threads are given, not decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from core.address import normalize_alias
from core.address.mailto import parse_recipient
from core.errors import BudgetExhausted, HopLimitReached, InvalidRequest
from core.identity.endpoints import Endpoint, sender_endpoint
from core.identity.external import Party, resolve_party, stored_cc
from core.mail.attachments import MAX_PER_MAIL, check_claimable
from core.mail.auto_rule import check_auto, check_auto_conversation
from core.mail.conversation_rows import ConversationRow
from core.mail.conversations import MAX_ALIAS
from core.mail.excerpt import excerpt_values
from core.mail.naming import Proposal, extract_proposal
from core.mail.new_mail import Permission, Sending, store_new_mail
from core.mail.outside import send_outside
from core.mail.outside_copies import queue_outside_copies
from core.mail.outside_hold import HeldAsk, hold_for_decision
from core.mail.reading import forwardable_mail, visible_mail
from core.mail.routing import Target, choose_conversation
from core.mail.subjects import MAX_SUBJECT, one_line
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store
from core.store.models import Mail, new_id, utcnow
from core.store.raw_messages import Original, keep_original
from core.views import BudgetInput, SendResult

DEFAULT_LIMITS = Limits()
MAX_CC = 50
__all__ = ["MailType", "MailWrite", "Permission", "SendRequest", "mail_writer", "send_mail"]
MailWrite = Callable[[Session], SendResult]
MailType = Literal[
    "normal", "permission_request", "question", "final_summary", "turn_failed", "forward"
]


class SendRequest(BaseModel):
    to: str = Field(
        description="One address, native (`builder@ModelRouter`) or email form; outside the"
        " gateway `mailto:x@example.com` (a sender enabled for outbound mail only)."
    )
    cc: list[str] = Field(
        default_factory=list, description="More recipients, in the same forms as `to`."
    )
    subject: str = Field("", max_length=MAX_SUBJECT)
    body: str = ""
    reply_to: str | None = Field(None, description="mail_id this mail answers.")
    session_id: str | None = Field(
        None,
        max_length=64,
        description="A conversation you take part in, to continue it (checked like an alias).",
    )
    session_alias: str | None = Field(
        None, max_length=MAX_ALIAS, description="Alias for a new conversation."
    )
    from_workspace: str | None = Field(None, description="Agents: the workspace sending.")
    budget: BudgetInput | None = Field(None, description="Round-trip budget of a new conversation.")
    mail_type: Literal["normal", "question", "final_summary", "turn_failed"] = Field(
        "normal",
        description="Agents: a question, the final summary of a task, or `turn_failed`:"
        " the task's turn did not finish (interrupted, failed, timed out).",
    )
    auto: bool = Field(
        False,
        description="Bridge auto-forward, no round: only on a question or the one"
        " final answer (final_summary or turn_failed) to a mail addressed to you (reply_to).",
    )
    propose_alias: str | None = Field(
        None, description="Agents: propose a better alias for the conversation (a human decides)."
    )
    propose_reason: str | None = Field(None, description="Why the proposed alias fits.")
    attachment_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_PER_MAIL,
        description="Your own uploads (POST .../attachments) that this mail carries.",
    )


def _hops(
    sender: Endpoint,
    target: Endpoint,
    parent: Mail | None,
    conv: ConversationRow,
    limits: Limits,
) -> int:
    """Agent mails since the last human one in the conversation (or in the thread it
    answers, across conversations); past the limit a mail to an agent is refused.

    A loop between agents (each answering the other's answer) is refused here, with
    the reason, instead of running until a budget or the disk runs out. It counts by
    conversation, not only along `reply_to`: addressing the conversation by its alias
    without `reply_to` continues the same chain.
    """
    if sender.agent is None:
        return 0
    hops = max(parent.hops if parent is not None else 0, conv.latest_hops) + 1
    if target.agent is not None and hops > limits.hop_limit:  # auto mails too
        raise HopLimitReached(
            f"{hops - 1} mails have passed between agents without a human in between "
            f"(hop limit {limits.hop_limit}): a human must reply in this thread first"
        )
    return hops


async def send_mail(
    store: Store,
    domain: str,
    principal: Principal,
    request: SendRequest,
    *,
    mail_type: MailType = "normal",
    permission: Permission | None = None,
    conversation_id: str | None = None,
    message_id: str | None = None,
    raw: Original | None = None,
    limits: Limits = DEFAULT_LIMITS,
    also: Callable[[Session], None] | None = None,
    forward_of: str | None = None,
) -> SendResult:
    """Store one mail, its deliveries and its events in one transaction.

    `also` runs first in that transaction, so its change commits with the mail or not
    at all (sending a draft deletes it this way); raising from it refuses the send.
    `forward_of` names a mail this one forwards: it becomes the parent (so the
    tree follows it across conversations) without choosing the conversation,
    which the address decides as for any send; its attachments are carried.
    """
    write = mail_writer(
        domain,
        principal,
        request,
        mail_type=mail_type,
        permission=permission,
        conversation_id=conversation_id,
        message_id=message_id,
        raw=raw,
        limits=limits,
        also=also,
        forward_of=forward_of,
    )
    return await store.write(write)


async def send_mails(store: Store, writes: Sequence[MailWrite]) -> list[SendResult]:
    """Store several mails in one transaction: all of them, or none (one SMTP
    message to several conversations, an imported thread)."""
    return await store.write(lambda session: [write(session) for write in writes])


def mail_writer(
    domain: str,
    principal: Principal,
    request: SendRequest,
    *,
    mail_type: MailType = "normal",
    permission: Permission | None = None,
    conversation_id: str | None = None,
    message_id: str | None = None,
    raw: Original | None = None,
    limits: Limits = DEFAULT_LIMITS,
    also: Callable[[Session], None] | None = None,
    forward_of: str | None = None,
    round_free: bool = False,
) -> MailWrite:
    """The write of `send_mail` as a function of a transaction, checked and parsed
    up front (bad input raises here, before any transaction), so callers can run
    several in one transaction or together with their own change. `round_free`: a mail
    the gateway writes for an agent (the request asking to send its held mail), which
    spends no round of the conversation's budget."""
    address = parse_recipient(request.to, domain)
    body, proposal = extract_proposal(request.body)
    if request.propose_alias is not None and principal.is_agent:
        proposal = Proposal(normalize_alias(request.propose_alias), request.propose_reason or "")
    route = Target(address, request.subject, request.session_alias, request.budget)
    cc_addresses = [parse_recipient(text, domain) for text in request.cc]
    if len(cc_addresses) > MAX_CC:
        raise InvalidRequest(f"at most {MAX_CC} cc recipients")
    one_line(request.subject)

    if forward_of is not None and request.reply_to is not None:
        raise InvalidRequest("a forward is not a reply: give reply_to or forward, not both")
    if request.mail_type != "normal":
        if mail_type != "normal":
            raise InvalidRequest(f"a {mail_type} has no mail_type of its own")
        if not principal.is_agent:
            raise InvalidRequest("mail_type question, final_summary and turn_failed are for agents")
        mail_type = request.mail_type

    checked = _Checked(
        domain,
        principal,
        request,
        mail_type,
        permission,
        conversation_id or request.session_id,
        message_id,
        raw,
        limits,
        forward_of,
        address,
        cc_addresses,
        route,
        body,
        proposal,
        excerpt_values(body),  # parsed here, outside the transaction's locks
        round_free,
    )

    def run(session: Session) -> SendResult:
        if also is not None:
            also(session)
        return _write(session, checked)

    return run


@dataclass(frozen=True, slots=True)
class _Checked:
    """A send's input, parsed and checked before any transaction."""

    domain: str
    principal: Principal
    request: SendRequest
    mail_type: MailType
    permission: Permission | None
    conversation_id: str | None
    message_id: str | None
    raw: Original | None
    limits: Limits
    forward_of: str | None
    address: Party
    cc: list[Party]
    route: Target
    body: str
    proposal: Proposal | None
    listed: dict[str, object]  # the excerpt and task counts (core/mail/excerpt.py)
    round_free: bool = False


def _write(session: Session, send: _Checked) -> SendResult:
    """Decide in the transaction (parent, endpoints, conversation, hops, budget),
    then store the mail (core/mail/new_mail.py)."""
    principal, request = send.principal, send.request
    parent = None
    if send.forward_of is not None:
        parent = forwardable_mail(session, principal, send.forward_of)
    elif request.reply_to is not None:
        parent = visible_mail(session, principal, request.reply_to)
    attachment_ids = check_claimable(session, principal.name, request.attachment_ids)
    target = resolve_party(session, send.address)
    cc = list({e.pair: e for e in (resolve_party(session, a) for a in send.cc)}.values())
    if send.mail_type == "permission_request" and (target.agent is not None or not target.name):
        raise InvalidRequest("a permission request goes to a human of the gateway")
    sender = sender_endpoint(session, principal, request.from_workspace, parent)
    outside = send_outside(session, sender, [target, *cc], send.limits)
    replied_to = parent if send.forward_of is None else None
    if request.auto:
        check_auto(session, principal, send.mail_type, replied_to)
    conv, created = choose_conversation(
        session, send.route, sender, target, replied_to, send.conversation_id, send.limits
    )
    hops = _hops(sender, target, parent, conv, send.limits)
    if request.auto and replied_to is not None:
        check_auto_conversation(replied_to, conv.id)
    rounds = 0
    if (
        principal.is_agent and not request.auto and not send.round_free
    ):  # a round (unlimited ones count too)
        if conv.budget_limit is not None and conv.budget_used >= conv.budget_limit:
            raise BudgetExhausted(
                f"the conversation's round-trip budget is used up "
                f"({conv.budget_used}/{conv.budget_limit}); a human must raise it"
            )
        rounds = 1
        conv.budget_used += 1  # as the write-back will store it
    mail = Sending(
        principal,
        sender,
        target,
        cc,
        parent,
        replied_to,
        attachment_ids,
        send.permission,
        send.mail_type,
        send.proposal,
        hops,
        rounds,
    )
    values = _mail_values(session, send, mail, conv)
    result = store_new_mail(session, mail, values, conv, created, send.domain)
    outside.enqueue(session, result.mail_id, send.domain)
    if send.limits.outbound:  # copies to the humans' own mailboxes outside
        humans = [n for e in (target, *cc) if e.agent is None and e.name for n in e.recipients]
        others = [n for n in humans if n != sender.name]
        queue_outside_copies(session, result.mail_id, mail.mail_type, others, send.domain)
    if not outside.held:
        return result

    def write_request(ask: HeldAsk, permission: Permission) -> SendResult:
        request = SendRequest(
            to=ask.to, cc=ask.cc, subject=ask.question, body=ask.body, reply_to=result.mail_id
        )
        return mail_writer(
            send.domain,
            send.principal,
            request,
            mail_type="permission_request",
            permission=permission,
            conversation_id=result.session_id,
            limits=send.limits,
            round_free=True,
        )(session)

    return hold_for_decision(session, result, outside, send.domain, write_request)


def _mail_values(
    session: Session, send: _Checked, mail: Sending, conv: ConversationRow
) -> dict[str, Any]:
    """The new `mails` row."""
    mail_id = new_id()
    request, sender, target = send.request, mail.sender, mail.target
    values: dict[str, Any] = {
        "id": mail_id,
        "session_id": conv.id,
        "parent_id": mail.parent.id if mail.parent else None,
        "from_name": sender.name,
        "from_path": sender.workspace,
        "to_name": target.name,
        "to_path": target.workspace,
        "cc": [stored_cc(e) for e in mail.cc],
        # A mail that came as bytes has the subject they say, even none (RFC 6409 §8:
        # a submission without headers must not show its conversation's subject).
        "subject": (
            request.subject.strip()
            if send.raw is not None
            else request.subject.strip() or conv.subject
        ),
        "body": send.body,
        **send.listed,
        "mail_type": mail.mail_type,
        "auto": request.auto,
        "hops": mail.hops,
        "message_id": send.message_id or f"<{mail_id}@{send.domain}>",
        # Mails of one submission share the one stored copy of its bytes.
        "raw_sha256": keep_original(session, send.raw) if send.raw is not None else None,
        "created_at": utcnow(),
    }
    permission = send.permission
    if permission is not None:
        values.update(
            options=permission.options,
            permission_state="open",
            expires_at=permission.expires_at,
            action=permission.action,
            action_sha256=permission.action_sha256,
        )
    return values

"""Sending mail: the one write path every entrance (REST, SMTP, import, bridges) calls.

Budgets, addressing, permission semantics and events therefore behave the same
whichever way a mail comes in. Archived mail (`agentmail import`) has its own mode,
core/mail/imported.py: its senders, times and threads are given, not decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import insert
from sqlalchemy.orm import Session

from core.address import Address, normalize_alias, parse_address, parse_native
from core.errors import BudgetExhausted, HopLimitReached, InvalidRequest
from core.identity.endpoints import Endpoint, resolve_endpoint, sender_endpoint
from core.mail.addressed import addressed_workspace, agent_workspaces_of
from core.mail.attachments import MAX_PER_MAIL, attach, carry, check_claimable
from core.mail.auto_rule import check_auto, check_auto_conversation
from core.mail.conversation_rows import ConversationRow, save_conversation
from core.mail.conversation_views import budget_remaining
from core.mail.conversations import (
    add_participants,
    emit_session_update,
    participants,
    status_from_requests,
)
from core.mail.naming import Proposal, extract_proposal, record_proposal
from core.mail.reading import forwardable_mail, visible_mail
from core.mail.routing import Target, choose_conversation
from core.mail.send_pg import store_mail
from core.mailboxes.placement import set_flags
from core.mailboxes.uids import file_mail, new_mail_placements
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store, wake_after_commit
from core.store.events import emit
from core.store.models import Delivery, Mail, isoformat, new_id, table_of, utcnow
from core.store.prepared import Prepared
from core.store.raw_messages import Original, keep_original
from core.views import BudgetInput, SendResult

DEFAULT_LIMITS = Limits()
MAX_CC = 50
MailWrite = Callable[[Session], SendResult]
MailType = Literal[
    "normal", "permission_request", "question", "final_summary", "turn_failed", "forward"
]


class SendRequest(BaseModel):
    to: str = Field(description="One address, native (`builder@ModelRouter`) or email form.")
    cc: list[str] = Field(default_factory=list, description="More recipients.")
    subject: str = Field("", max_length=998)
    body: str = ""
    reply_to: str | None = Field(None, description="mail_id this mail answers.")
    session_id: str | None = Field(
        None,
        max_length=64,
        description="A conversation you take part in, to continue it (checked like an alias).",
    )
    session_alias: str | None = Field(None, description="Alias for a new conversation.")
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


@dataclass(frozen=True, slots=True)
class Permission:
    options: list[str]
    expires_at: datetime | None = None
    action: str | None = None
    action_sha256: str | None = None


_MAILS = table_of(Mail)


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
) -> MailWrite:
    """The write of `send_mail` as a function of a transaction, checked and parsed
    up front (bad input raises here, before any transaction), so callers can run
    several in one transaction or together with their own change."""
    address = parse_address(request.to, domain)
    body, proposal = extract_proposal(request.body)
    if request.propose_alias is not None and principal.is_agent:
        proposal = Proposal(normalize_alias(request.propose_alias), request.propose_reason or "")
    route = Target(address, request.subject, request.session_alias, request.budget)
    cc_addresses = [parse_address(text, domain) for text in request.cc]
    if len(cc_addresses) > MAX_CC:
        raise InvalidRequest(f"at most {MAX_CC} cc recipients")
    if "\n" in request.subject or "\r" in request.subject:
        raise InvalidRequest("a subject is one line")

    if forward_of is not None and request.reply_to is not None:
        raise InvalidRequest("a forward is not a reply: give reply_to or forward, not both")
    if request.mail_type != "normal":
        if mail_type != "normal":
            raise InvalidRequest(f"a {mail_type} has no mail_type of its own")
        if not principal.is_agent:
            raise InvalidRequest("mail_type question, final_summary and turn_failed are for agents")
        mail_type = request.mail_type

    def run(session: Session) -> SendResult:
        if also is not None:
            also(session)
        parent = None
        if forward_of is not None:
            parent = forwardable_mail(session, principal, forward_of)
        elif request.reply_to is not None:
            parent = visible_mail(session, principal, request.reply_to)
        attachment_ids = check_claimable(session, principal.name, request.attachment_ids)
        target = resolve_endpoint(session, address)
        cc = list(
            {e.pair: e for e in (resolve_endpoint(session, a) for a in cc_addresses)}.values()
        )
        if mail_type == "permission_request" and target.agent is not None:
            raise InvalidRequest("a permission request goes to a human, not to an agent")
        sender = sender_endpoint(session, principal, request.from_workspace, parent)
        replied_to = parent if forward_of is None else None
        forwarded = parent if forward_of is not None else None
        if request.auto:
            check_auto(session, principal, mail_type, replied_to)
        conv, created = choose_conversation(
            session,
            route,
            sender,
            target,
            replied_to,
            conversation_id or request.session_id,
            limits,
        )
        hops = _hops(sender, target, parent, conv, limits)
        if request.auto and replied_to is not None:
            check_auto_conversation(replied_to, conv.id)
        rounds = 0
        if principal.is_agent and not request.auto:  # a round (unlimited ones count too)
            if conv.budget_limit is not None and conv.budget_used >= conv.budget_limit:
                raise BudgetExhausted(
                    f"the conversation's round-trip budget is used up "
                    f"({conv.budget_used}/{conv.budget_limit}); a human must raise it"
                )
            rounds = 1
            conv.budget_used += 1  # as the UPDATE below will store it
        now = utcnow()
        mail_id = new_id()
        values: dict[str, Any] = {
            "id": mail_id,
            "session_id": conv.id,
            "parent_id": parent.id if parent else None,
            "from_name": sender.name,
            "from_path": sender.workspace,
            "to_name": target.name,
            "to_path": target.workspace,
            "cc": [e.address().native() for e in cc],
            # A mail that came as bytes has the subject they say, even none (RFC 6409 §8:
            # a submission without headers must not show its conversation's subject).
            "subject": (
                request.subject.strip()
                if raw is not None
                else request.subject.strip() or conv.subject
            ),
            "body": body,
            "mail_type": mail_type,
            "auto": request.auto,
            "hops": hops,
            "message_id": message_id or f"<{mail_id}@{domain}>",
            # Mails of one submission share the one stored copy of its bytes.
            "raw_sha256": keep_original(session, raw) if raw is not None else None,
            "created_at": now,
        }
        if permission is not None:
            values.update(
                options=permission.options,
                permission_state="open",
                expires_at=permission.expires_at,
                action=permission.action,
                action_sha256=permission.action_sha256,
            )
        # Core statements, not the ORM unit of work: this is the hottest write path.
        connection = session.connection()
        # One delivery per name; a role mailbox (postmaster@) is delivered to its readers.
        recipients = dict.fromkeys(target.recipients, "to")
        for endpoint in cc:
            for name in endpoint.recipients:
                recipients.setdefault(name, "cc")
        human_recipients = [n for e in (target, *cc) if e.agent is None for n in e.recipients]
        placements = new_mail_placements(
            conv.id,
            sender.name if sender.agent is None else None,
            human_recipients,
            needs_decision=permission is not None,
        )
        old_status = conv.status
        status = _status_known_before(conv.status, permission, mail_type, principal)
        if (
            connection.dialect.name == "postgresql"
            and status is not None
            and (proposal is None or not principal.is_agent)
        ):  # one statement (core/mail/send_pg.py)
            answered = replied_to is not None and sender.agent is None
            needs_seq = bool(attachment_ids) or forwarded is not None or answered
            seq = store_mail(
                session,
                values,
                recipients,
                placements,
                [sender.name, *recipients],
                status,
                rounds,
                at_commit=not needs_seq,
            )
            wake_after_commit(session, {owner for owner, _ in placements})
            if seq is not None:
                _link(session, seq, attachment_ids, forwarded, sender.name)
                if answered and replied_to is not None:
                    set_flags(session, sender.name, {("answered", True): [replied_to.seq]})
            conv.status = status
            conv.updated_at = now  # as stored, like the budget above
            return _sent(session, values, recipients, conv, old_status, created, domain, target)
        # Bound per call, built once: `.values(values)` would make a new statement (and
        # its cache key over every value) for each mail.
        seq = _INSERT_MAIL.run(connection, values)[0][0]
        _link(session, seq, attachment_ids, forwarded, sender.name)
        _INSERT_DELIVERY.run(
            connection,
            [
                {"mail_seq": seq, "recipient": name, "kind": kind, "created_at": now}
                for name, kind in recipients.items()
            ],
        )
        file_mail(session, seq, placements)
        add_participants(session, conv.id, [sender.name, *recipients])
        if replied_to is not None and sender.agent is None:
            # The replying human's own delivery of the mail is answered (IMAP's
            # \Answered, RFC 3501 §2.3.2), in this transaction; their sessions are told.
            set_flags(session, sender.name, {("answered", True): [replied_to.seq]})
        if proposal is not None and principal.is_agent:
            record_proposal(session, conv, proposal, sender.name, mail_id)
        # A human's mail answers an open question (not a permission request): read
        # with this mail stored.
        conv.status = status or status_from_requests(session, conv.id)
        conv.updated_at = now
        conv = save_conversation(session, conv, rounds)  # one UPDATE … RETURNING
        return _sent(session, values, recipients, conv, old_status, created, domain, target)

    return run


def _link(
    session: Session, seq: int, attachment_ids: list[str], forwarded: Mail | None, sender: str
) -> None:
    """The new mail's attachments, and a forward's copies of the forwarded mail's."""
    attach(session, attachment_ids, seq)
    if forwarded is not None:
        carry(session, forwarded.seq, seq, sender)


def _status_known_before(
    status: str, permission: Permission | None, mail_type: MailType, principal: Principal
) -> str | None:
    """The conversation's status after this mail when the mail's own row cannot
    change it; None when it must be read with the mail stored."""
    if permission is not None or mail_type == "question":
        return "waiting"  # until a human decides or answers
    if status == "completed" or (status == "waiting" and principal.is_human):
        return None
    return status


def _sent(
    session: Session,
    values: dict[str, Any],
    recipients: dict[str, str],
    conv: ConversationRow,
    old_status: str,
    created: bool,
    domain: str,
    target: Endpoint,
) -> SendResult:
    """Queue the stored mail's events (inserted at COMMIT); the sender's answer."""
    payload = _new_mail_payload(values["id"], values, conv, domain, target)
    emit(session, recipients, "new_mail", payload)
    if conv.status != old_status and not created:
        emit_session_update(session, conv, participants(session, conv.id))
    return SendResult(
        mail_id=values["id"],
        session_id=conv.id,
        session_alias=conv.alias,
        message_id=values["message_id"],
        budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
        budget_used=conv.budget_used,
        budget_remaining=budget_remaining(conv),
        created_at=values["created_at"],
    )


_INSERT_MAIL = Prepared(insert(_MAILS).returning(_MAILS.c.seq))
_INSERT_DELIVERY = Prepared(insert(table_of(Delivery)))


def _new_mail_payload(
    mail_id: str, values: dict[str, Any], conv: ConversationRow, domain: str, target: Endpoint
) -> dict[str, object]:
    sender = Address(values["from_name"], values["from_path"], conv.alias)
    to = Address(values["to_name"], values["to_path"], conv.alias)
    workspace = None
    if target.agent is not None:
        paths = agent_workspaces_of(target.agent)
        workspace = addressed_workspace(target.name, target.workspace, paths)
    return {
        "mail_id": mail_id,
        "session_id": conv.id,
        "session_alias": conv.alias,
        "from": sender.native(),
        "from_email": sender.email(domain),
        "to": to.native(),
        "to_workspace": workspace.model_dump() if workspace is not None else None,
        "cc": [parse_native(text).with_session(conv.alias).native() for text in values["cc"]],
        "auto": values["auto"],
        "subject": values["subject"],
        "mail_type": values["mail_type"],
        "created_at": isoformat(values["created_at"]),
    }

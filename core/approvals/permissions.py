"""Permission requests: an agent asks a human, the human decides once."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.address import parse_native
from core.approvals.held_outbound import settle_held
from core.durations import parse_duration
from core.errors import AlreadyDecided, Forbidden, InvalidDecision, InvalidRequest, NotFound
from core.mail.addressed import agent_workspaces
from core.mail.conversations import (
    by_id_locked,
    emit_session_update,
    participants,
    status_from_requests,
)
from core.mail.reading import mail_view
from core.mail.send import (
    DEFAULT_LIMITS,
    MAX_CC,
    MailWrite,
    Permission,
    SendRequest,
    mail_writer,
)
from core.mailboxes.keywords import keywords_of
from core.mailboxes.uids import DECISION, unfile_everywhere
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store
from core.store.events import emit
from core.store.models import Agent, Conversation, Delivery, Mail, isoformat, utcnow
from core.views import MailList, SendResult

DEFAULT_OPTIONS = ["approve", "reject"]
MAX_OPTIONS = 20


class PermissionRequest(BaseModel):
    to: str = Field(description="The human who decides.")
    cc: list[str] = Field(
        default_factory=list,
        max_length=MAX_CC,
        description="Others who see the request; only `to` decides it (403 for a cc).",
    )
    question: str = Field(min_length=1, max_length=998)
    options: list[str] = Field(default_factory=lambda: list(DEFAULT_OPTIONS))
    context: str = ""
    session_id: str | None = None
    reply_to: str | None = None
    expires_in: str | int | None = Field(None, description="Seconds, or text like '30m'.")
    action: str | None = Field(None, description="The exact action; its sha256 is returned.")
    from_workspace: str | None = None
    auto: bool = Field(False, description="Bridge auto-forward: never counts as a round.")


def _checked_options(options: list[str]) -> list[str]:
    cleaned = [option.strip() for option in options]
    if not cleaned or len(cleaned) > MAX_OPTIONS:
        raise InvalidRequest(f"a permission request needs 1 to {MAX_OPTIONS} options")
    if any(not option or len(option) > 200 or "\n" in option for option in cleaned):
        raise InvalidRequest("each option is one non-empty line of at most 200 characters")
    if len({option.casefold() for option in cleaned}) != len(cleaned):
        raise InvalidRequest("options must differ (case-insensitively)")
    return cleaned


async def request_permission(
    store: Store,
    domain: str,
    principal: Principal,
    request: PermissionRequest,
    limits: Limits = DEFAULT_LIMITS,
) -> SendResult:
    return await store.write(permission_writer(domain, principal, request, limits))


def permission_writer(
    domain: str,
    principal: Principal,
    request: PermissionRequest,
    limits: Limits = DEFAULT_LIMITS,
) -> MailWrite:
    """The request's mail write, checked up front (`mail_writer`): the caller runs it,
    alone or under an idempotency key (core/mail/idempotency.py)."""
    options = _checked_options(request.options)
    question = " ".join(request.question.split())
    expires_at = utcnow() + parse_duration(request.expires_in) if request.expires_in else None
    action_sha256 = (
        hashlib.sha256(request.action.encode("utf-8")).hexdigest() if request.action else None
    )
    body = question if not request.context else f"{question}\n\n{request.context}"
    return mail_writer(
        domain,
        principal,
        SendRequest(
            to=request.to,
            cc=request.cc,
            subject=question,
            body=body,
            reply_to=request.reply_to,
            from_workspace=request.from_workspace,
            auto=request.auto,
        ),
        mail_type="permission_request",
        permission=Permission(options, expires_at, request.action, action_sha256),
        conversation_id=request.session_id,
        limits=limits,
    )


def match_option(options: list[str], decision: str) -> str | None:
    """The option a decision names: exact text, else case-insensitive text."""
    decision = decision.strip()
    if decision in options:
        return decision
    folded = {option.casefold(): option for option in options}
    return folded.get(decision.casefold())


async def decide_permission(
    store: Store, principal: Principal, mail_id: str, decision: str, note: str | None
) -> Mail:
    """Decide an open request addressed to the caller; decided once (409 after)."""
    return await store.write(lambda session: decide_in(session, principal, mail_id, decision, note))


def decide_in(
    session: Session, principal: Principal, mail_id: str, decision: str, note: str | None
) -> Mail:
    """The decision itself, inside the caller's transaction: the web button and a reply
    by mail (core/approvals/reply_decision.py) both decide here. Raises before changing anything."""
    mail = lock_request(session, mail_id)
    delivered = mail is not None and session.scalar(
        select(Delivery.id).where(
            Delivery.mail_seq == mail.seq, Delivery.recipient == principal.name
        )
    )
    if mail is None or not delivered or mail.mail_type != "permission_request":
        raise NotFound(f"no permission request {mail_id} in your mailbox")
    if mail.to_name != principal.name:
        raise Forbidden("only the human the request is addressed to decides it")
    if mail.permission_state != "open":
        raise AlreadyDecided(
            f"this request is already {mail.permission_state}"
            + (f": '{mail.decision}' by {mail.decided_by}" if mail.decision else "")
        )
    if mail.expires_at is not None and mail.expires_at <= utcnow():
        raise AlreadyDecided("this request has expired")
    chosen = match_option(mail.options or [], decision)
    if chosen is None:
        raise InvalidDecision(
            f"'{decision}' is not an option; choose one of: " + ", ".join(mail.options or [])
        )
    mail.permission_state = "decided"
    mail.decision = chosen
    mail.decision_note = note or None
    mail.decided_by = principal.name
    mail.decided_at = utcnow()
    session.flush()
    unfile_everywhere(session, DECISION, mail.seq)
    _report_outcome(session, mail)
    return mail


def lock_request(session: Session, mail_id: str) -> Mail | None:
    """The request row, locked after its conversation's: every transaction that changes
    a request (the button, a reply by mail, the expiry sweep) and every mail sent into
    a conversation lock the conversation first, so two of them never wait on each other
    in opposite orders (a deadlock on PostgreSQL)."""
    conversation_id = session.scalar(select(Mail.session_id).where(Mail.id == mail_id))
    if conversation_id is not None:
        by_id_locked(session, conversation_id)
    return session.scalar(
        select(Mail)
        .where(Mail.id == mail_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def _report_outcome(session: Session, mail: Mail) -> None:
    """Tell the requesting agent and the addressed humans; settle the conversation's status
    and a held outside mail the request asked about."""
    settle_held(session, mail)
    audience = [mail.from_name, mail.to_name]
    for cc_native in mail.cc:
        name = parse_native(cc_native).name
        if not session.scalar(select(Agent.id).where(Agent.name == name)):
            audience.append(name)
    emit(
        session,
        audience,
        "permission_decision",
        {
            "mail_id": mail.id,
            "session_id": mail.session_id,
            "state": mail.permission_state,
            "decision": mail.decision,
            "note": mail.decision_note,
            "decided_by": mail.decided_by,
            "decided_at": isoformat(mail.decided_at) if mail.decided_at else None,
            "action_sha256": mail.action_sha256,
        },
    )
    conv = by_id_locked(session, mail.session_id)
    if conv is not None and conv.status == "waiting":
        conv.status = status_from_requests(session, conv.id)
        conv.updated_at = utcnow()
        if conv.status != "waiting":
            emit_session_update(session, conv, participants(session, conv.id))


def next_expiry(session: Session) -> datetime | None:
    """The nearest deadline of an open request (a new one wakes the job:
    `DEADLINE_WAKE`)."""
    deadline: datetime | None = session.scalar(
        select(func.min(Mail.expires_at)).where(Mail.permission_state == "open")
    )
    return deadline


async def expire_permission_requests(store: Store) -> int:
    """Close open requests past their `expires_at`; the agent is told `expired`."""

    now = utcnow()
    overdue_query = select(Mail).where(
        Mail.permission_state == "open", Mail.expires_at.is_not(None), Mail.expires_at <= now
    )
    # Most of the time there is nothing to do: look before taking the writer.
    if (
        await store.read(lambda s: s.scalar(overdue_query.with_only_columns(Mail.seq).limit(1)))
        is None
    ):
        return 0

    def run(session: Session) -> int:
        # The lock order of every decision (`lock_request`): conversations first, in
        # id order, then the requests; then re-read, since one may be decided by now.
        found = session.execute(overdue_query.with_only_columns(Mail.seq, Mail.session_id)).all()
        for conversation_id in sorted({row.session_id for row in found}):
            by_id_locked(session, conversation_id)
        seqs = [row.seq for row in found]
        locked = overdue_query.where(Mail.seq.in_(seqs)).order_by(Mail.seq).with_for_update()
        overdue = session.scalars(locked.execution_options(populate_existing=True)).all()
        for mail in overdue:
            mail.permission_state = "expired"
            session.flush()
            unfile_everywhere(session, DECISION, mail.seq)
            _report_outcome(session, mail)
        return len(overdue)

    return await store.write(run)


async def list_requests(
    store: Store,
    domain: str,
    principal: Principal,
    state: str | None,
    limit: int,
    offset: int,
    order: Literal["newest", "oldest"] = "newest",
) -> MailList:
    """The permission requests addressed to a human, newest first (one call for the web UI);
    `oldest` first puts the request waiting longest on top of an approvals queue."""
    query = (
        select(Mail, Delivery, Conversation.alias)
        .join(Delivery, (Delivery.mail_seq == Mail.seq) & (Delivery.recipient == principal.name))
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(Mail.mail_type == "permission_request", Mail.to_name == principal.name)
    )
    if state is not None:
        query = query.where(Mail.permission_state == state)
    count = select(func.count()).select_from(query.with_only_columns(Mail.seq).subquery())
    ordering = Mail.seq.desc() if order == "newest" else Mail.seq.asc()
    page = query.order_by(ordering).limit(limit).offset(offset)

    def run(session: Session) -> MailList:
        rows = session.execute(page).all()
        words = keywords_of(session, principal.name, [mail.seq for mail, _, _ in rows])
        agents = agent_workspaces(session, (mail for mail, _, _ in rows))
        return MailList(
            mails=[
                mail_view(
                    mail, alias, domain, delivery, keywords=words.get(mail.seq, []), agents=agents
                )
                for mail, delivery, alias in rows
            ],
            total=int(session.scalar(count) or 0),
        )

    return await store.read(run)


async def count_open_requests(store: Store) -> int:
    """Permission requests waiting for a decision, over all agents (the metrics gauge)."""
    query = select(func.count()).select_from(Mail).where(Mail.permission_state == "open")
    return await store.read(lambda s: int(s.scalar(query) or 0))

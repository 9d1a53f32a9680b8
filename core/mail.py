"""Sending mail: the one write path every entrance (REST, SMTP, import, bridges) calls.

Budgets, addressing, permission semantics and events therefore behave the same
whichever way a mail comes in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.address import Address, normalize_alias, parse_address, parse_native
from core.agents import get_agent
from core.attachments import MAX_PER_MAIL, attach, carry, check_claimable
from core.conversations import (
    add_participants,
    budget_remaining,
    by_alias,
    by_id_locked,
    default_key,
    emit_session_update,
    lock_creation,
    participants,
    status_from_requests,
    unique_alias,
)
from core.errors import (
    BudgetExhausted,
    InvalidAddress,
    InvalidRequest,
    NotFound,
    UnknownRecipient,
    UnknownWorkspace,
)
from core.events import emit
from core.mailbox import forwardable_mail, visible_mail
from core.models import (
    Agent,
    Conversation,
    Delivery,
    Mail,
    User,
    isoformat,
    new_id,
    table_of,
    utcnow,
)
from core.principal import Principal
from core.store import Store
from core.views import BudgetInput, SendResult

MAX_CC = 50
MailType = Literal["normal", "permission_request", "question", "final_summary", "forward"]


class SendRequest(BaseModel):
    to: str = Field(description="One address, native (`builder@ModelRouter`) or email form.")
    cc: list[str] = Field(default_factory=list, description="More recipients.")
    subject: str = Field("", max_length=998)
    body: str = ""
    reply_to: str | None = Field(None, description="mail_id this mail answers.")
    session_alias: str | None = Field(None, description="Alias for a new conversation.")
    from_workspace: str | None = Field(None, description="Agents: the workspace sending.")
    budget: BudgetInput | None = Field(None, description="Round-trip budget of a new conversation.")
    auto: bool = Field(False, description="Bridge auto-forward: never counts as a round.")
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


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A resolved mailbox: a human (workspace "") or an agent's workspace."""

    name: str
    workspace: str
    agent: Agent | None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.name, self.workspace)

    def address(self) -> Address:
        return Address(self.name, self.workspace)


def _workspace_of(agent: Agent, path: str) -> str:
    """The registered workspace `path` names (by name or by path); "" means the first."""
    if not agent.workspaces:
        raise UnknownWorkspace(f"agent '{agent.name}' has no workspace")
    if path == "":
        return agent.workspaces[0]["name"]
    for ws in agent.workspaces:
        if path in (ws["name"], ws.get("path")):
            return ws["name"]
    known = ", ".join(
        f"{ws['name']} ({ws['path']})" if ws.get("path") else ws["name"] for ws in agent.workspaces
    )
    raise UnknownWorkspace(
        f"undeliverable: agent '{agent.name}' has no workspace '{path}'; its workspaces: {known}"
    )


def resolve_endpoint(session: Session, address: Address) -> Endpoint:
    agent = get_agent(session, address.name)
    if agent is not None:
        return Endpoint(agent.name, _workspace_of(agent, address.path), agent)
    if session.scalar(select(User.id).where(User.name == address.name)):
        if address.path:
            raise InvalidAddress(
                f"'{address.name}' is a human: a human's address has no path ('{address.name}@')"
            )
        return Endpoint(address.name, "", None)
    raise UnknownRecipient(f"undeliverable: nobody is called '{address.name}'")


def sender_endpoint(
    session: Session, principal: Principal, from_workspace: str | None, parent: Mail | None
) -> Endpoint:
    if principal.is_human:
        return Endpoint(principal.name, "", None)
    agent = get_agent(session, principal.name)
    if agent is None:
        raise NotFound("register the agent first")
    if from_workspace is not None:
        return Endpoint(agent.name, _workspace_of(agent, from_workspace), agent)
    if parent is not None and parent.to_name == agent.name:
        return Endpoint(agent.name, parent.to_path, agent)
    return Endpoint(agent.name, agent.workspaces[0]["name"], agent)


def _initial_budget(request: SendRequest, sender: Endpoint, target: Endpoint) -> int | None:
    """Omitted = the receiving agent's default (else the sending agent's); None = unlimited."""
    if request.budget == "unlimited":
        return None
    if request.budget is not None:
        return request.budget
    for endpoint in (target, sender):
        if endpoint.agent is not None:
            return endpoint.agent.default_budget
    return None


def _conversation(
    session: Session,
    request: SendRequest,
    address: Address,
    sender: Endpoint,
    target: Endpoint,
    parent: Mail | None,
    conversation_id: str | None,
) -> tuple[Conversation, bool]:
    """The conversation this mail belongs to, and whether it was created for it."""
    if address.alias is not None:
        return by_alias(session, address.alias), False
    if not address.is_new:
        if conversation_id is not None:
            conv = by_id_locked(session, conversation_id)
            if conv is None:
                raise NotFound(f"no conversation {conversation_id}")
            return conv, False
        if parent is not None:
            conv = by_id_locked(session, parent.session_id)
            assert conv is not None
            return conv, False
    lock_creation(session)
    key = None
    if not address.is_new and request.session_alias is None:
        key = default_key(sender.pair, target.pair)
        existing = session.scalar(
            select(Conversation).where(Conversation.default_key == key).with_for_update()
        )
        if existing is not None:
            return existing, False
    alias = None
    if request.session_alias is not None:
        alias = unique_alias(session, normalize_alias(request.session_alias))
    conv = Conversation(
        id=new_id(),
        alias=alias,
        alias_source="sender" if alias else None,
        subject=request.subject.strip(),
        status="active",
        budget_limit=_initial_budget(request, sender, target),
        budget_used=0,
        default_key=key,
        created_by=sender.name,
    )
    session.add(conv)
    return conv, True


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
    raw: bytes | None = None,
    forward_of: str | None = None,
) -> SendResult:
    """Store one mail, its deliveries and its events in one transaction.

    `forward_of` names a mail this one forwards: it becomes the parent (so the
    tree follows it across conversations) without choosing the conversation,
    which the address decides as for any send; its attachments are carried.
    """
    address = parse_address(request.to, domain)
    cc_addresses = [parse_address(text, domain) for text in request.cc]
    if len(cc_addresses) > MAX_CC:
        raise InvalidRequest(f"at most {MAX_CC} cc recipients")
    if "\n" in request.subject or "\r" in request.subject:
        raise InvalidRequest("a subject is one line")

    if forward_of is not None and request.reply_to is not None:
        raise InvalidRequest("a forward is not a reply: give reply_to or forward, not both")

    def run(session: Session) -> SendResult:
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
        conv, created = _conversation(
            session, request, address, sender, target, replied_to, conversation_id
        )
        if created:
            session.flush()  # the Core inserts below refer to it
        if principal.is_agent and not request.auto:  # a round (unlimited ones count too)
            if conv.budget_limit is not None and conv.budget_used >= conv.budget_limit:
                raise BudgetExhausted(
                    f"the conversation's round-trip budget is used up "
                    f"({conv.budget_used}/{conv.budget_limit}); a human must raise it"
                )
            conv.budget_used += 1
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
            "subject": request.subject.strip() or conv.subject,
            "body": request.body,
            "mail_type": mail_type,
            "auto": request.auto,
            "message_id": message_id or f"<{mail_id}@{domain}>",
            "raw": raw,
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
        seq = connection.execute(_INSERT_MAIL.values(values)).scalar_one()
        attach(session, attachment_ids, seq)
        if forward_of is not None:
            assert parent is not None
            carry(session, parent.seq, seq, sender.name)
        recipients = {target.name: "to"}
        for endpoint in cc:
            recipients.setdefault(endpoint.name, "cc")
        connection.execute(
            _INSERT_DELIVERY,
            [
                {"mail_seq": seq, "recipient": name, "kind": kind, "created_at": now}
                for name, kind in recipients.items()
            ],
        )
        add_participants(session, conv.id, [sender.name, *recipients])
        old_status = conv.status
        if permission is not None:
            conv.status = "waiting"
        elif conv.status == "completed":
            conv.status = status_from_requests(session, conv.id)
        conv.updated_at = now
        payload = _new_mail_payload(mail_id, values, conv, domain)
        emit(session, recipients, "new_mail", payload)
        if conv.status != old_status and not created:
            emit_session_update(session, conv, participants(session, conv.id))
        return SendResult(
            mail_id=mail_id,
            session_id=conv.id,
            session_alias=conv.alias,
            message_id=values["message_id"],
            budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
            budget_used=conv.budget_used,
            budget_remaining=budget_remaining(conv),
            created_at=now,
        )

    return await store.write(run)


_INSERT_MAIL = insert(table_of(Mail)).returning(table_of(Mail).c.seq)
_INSERT_DELIVERY = insert(table_of(Delivery))


def _new_mail_payload(
    mail_id: str, values: dict[str, Any], conv: Conversation, domain: str
) -> dict[str, object]:
    sender = Address(values["from_name"], values["from_path"], conv.alias)
    to = Address(values["to_name"], values["to_path"], conv.alias)
    return {
        "mail_id": mail_id,
        "session_id": conv.id,
        "session_alias": conv.alias,
        "from": sender.native(),
        "from_email": sender.email(domain),
        "to": to.native(),
        "cc": [parse_native(text).with_session(conv.alias).native() for text in values["cc"]],
        "subject": values["subject"],
        "mail_type": values["mail_type"],
        "created_at": isoformat(values["created_at"]),
    }

"""Agents: registration with a key, heartbeats, presence and the directory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from core.address import Address, normalize_name
from core.errors import (
    AuthenticationFailed,
    Forbidden,
    NameTaken,
    NotFound,
)
from core.identity.accounts import lock_names, name_in_use, refuse_reserved_name
from core.identity.keys import issue_key, require_bound_agent
from core.identity.workspaces import Workspace, checked_workspaces, merged_workspaces
from core.principal import Principal
from core.store.engine import Store
from core.store.events import emit
from core.store.models import (
    Agent,
    Conversation,
    Delivery,
    Key,
    Mail,
    Participant,
    User,
    isoformat,
    utcnow,
)
from core.views import AgentView, WorkspaceView


def budget_value(limit: int | None) -> int | str:
    return "unlimited" if limit is None else limit


def agent_view(agent: Agent, domain: str) -> AgentView:
    workspaces = []
    for ws in agent.workspaces:
        address = Address(agent.name, ws["name"])
        workspaces.append(
            WorkspaceView(
                name=ws["name"],
                path=ws.get("path", ""),
                address=address.native(),
                email=address.email(domain),
            )
        )
    return AgentView(
        agent_id=agent.id,
        agent_name=agent.name,
        workspaces=workspaces,
        platform=agent.platform,
        status="online" if agent.status == "online" else "offline",
        last_seen=agent.last_seen,
        default_budget=budget_value(agent.default_budget),
        outbound_mail=bool(agent.outbound_mail),
        created_at=agent.created_at,
    )


def _presence_audience(session: Session, agent_name: str) -> list[str]:
    """Every human, and the agents that share a conversation with this one, by name:
    their events' ids follow this order, the same on every database."""
    humans = session.scalars(select(User.name).order_by(User.name)).all()
    mine = select(Participant.session_id).where(Participant.name == agent_name)
    peers = session.scalars(
        select(Participant.name)
        .where(Participant.session_id.in_(mine), Participant.name != agent_name)
        .distinct()
        .order_by(Participant.name)
    ).all()
    return [*humans, *peers]


def _set_presence(session: Session, agent: Agent, status: str) -> None:
    changed = agent.status != status
    agent.status = status
    if changed:
        emit(
            session,
            _presence_audience(session, agent.name),
            "agent_online",
            {
                "agent_name": agent.name,
                "status": status,
                "last_seen": isoformat(agent.last_seen) if agent.last_seen else None,
            },
        )


def _bind_key(session: Session, principal: Principal, name: str, now: datetime) -> None:
    """Bind the key to `name`, atomically: of racing registrations with one key, one wins.

    An enrolment key is used up here; an ordinary key may only ever bind one name.
    """
    binding = update(Key).where(Key.id == principal.key_id, Key.revoked_at.is_(None))
    if principal.is_enrolment_key:
        binding = binding.where(Key.used_at.is_(None)).values(owner=name, used_at=now)
    else:
        binding = binding.where((Key.owner.is_(None)) | (Key.owner == name)).values(owner=name)
    if session.execute(binding).rowcount != 1:  # type: ignore[attr-defined]
        if principal.is_enrolment_key:
            raise AuthenticationFailed("this enrolment key has been used")
        raise Forbidden("this key is bound to another agent")


async def register_agent(
    store: Store,
    principal: Principal,
    name: str,
    workspaces: Sequence[Workspace],
    platform: str,
    default_budget: int | None,
) -> tuple[Agent, str | None]:
    """Register (or update) the agent this key is bound to; registering again adds or
    updates workspaces and keeps the others (core/identity/workspaces.py).

    Returns the agent and, when an enrolment key was used, the agent's new permanent key.
    """
    name = normalize_name(name)
    refuse_reserved_name(name)
    if principal.name and principal.name != name:
        raise Forbidden(f"this key is bound to agent '{principal.name}', not '{name}'")
    checked = checked_workspaces(workspaces, name)
    now = utcnow()

    def run(session: Session) -> Agent:
        _bind_key(session, principal, name, now)
        lock_names(session)
        agent = get_agent(session, name)
        if agent is None:
            if name_in_use(session, name):
                raise NameTaken(f"the name '{name}' is already taken by a human")
            agent = Agent(name=name, workspaces=checked, platform=platform, status="offline")
            agent.default_budget = default_budget
            session.add(agent)
        elif not principal.name:
            raise NameTaken(f"agent '{name}' is registered with another key")
        else:
            agent.workspaces = merged_workspaces(agent.workspaces, checked)
            agent.platform = platform
        agent.last_seen = now
        _set_presence(session, agent, "online")
        return agent

    agent = await store.write(run)
    permanent_key = None
    if principal.is_enrolment_key:
        issued = await issue_key(
            store,
            kind="agent",
            lifecycle="permanent",
            owner=name,
            label="enrolled",
            created_by=name,
        )
        permanent_key = issued.key
    return agent, permanent_key


def _waiting_conversations(session: Session, agent_name: str) -> list[dict[str, Any]]:
    """The conversations with mail the agent has not read, and their budgets."""
    unread = (
        select(Mail.session_id, func.count().label("unread"))
        .join(Delivery, Delivery.mail_seq == Mail.seq)
        .where(
            Delivery.recipient == agent_name,
            Delivery.is_read.is_(False),
            Delivery.archived.is_(False),
        )
        .group_by(Mail.session_id)
        .subquery()
    )
    rows = session.execute(
        select(Conversation, unread.c.unread)
        .join(unread, unread.c.session_id == Conversation.id)
        .order_by(Conversation.updated_at)
    ).all()
    return [
        {
            "session_id": conv.id,
            "session_alias": conv.alias,
            "unread": count,
            "budget_limit": budget_value(conv.budget_limit),
            "budget_used": conv.budget_used,
            "budget_remaining": budget_value(
                None if conv.budget_limit is None else max(0, conv.budget_limit - conv.budget_used)
            ),
        }
        for conv, count in rows
    ]


async def heartbeat(store: Store, principal: Principal) -> dict[str, Any]:
    """Mark the agent online; report its unread mail and the budgets of waiting conversations."""
    require_bound_agent(principal)

    def run(session: Session) -> dict[str, Any]:
        agent = get_agent(session, principal.name)
        if agent is None:
            raise Forbidden("register the agent first")
        agent.last_seen = utcnow()
        _set_presence(session, agent, "online")
        waiting = _waiting_conversations(session, agent.name)
        return {
            "status": "ok",
            "agent_status": agent.status,
            "pending_mails": sum(item["unread"] for item in waiting),
            "sessions": waiting,
        }

    return await store.write(run)


async def list_agents(store: Store, status: str | None = None) -> list[Agent]:
    query = select(Agent).order_by(Agent.name)
    if status is not None:
        query = query.where(Agent.status == status)
    return await store.read(lambda s: list(s.scalars(query)))


_AGENT_BY_NAME = select(Agent).where(Agent.name == bindparam("name"))  # built once: hot path


def get_agent(session: Session, name: str) -> Agent | None:
    return session.scalar(_AGENT_BY_NAME, {"name": name})


async def set_default_budget(store: Store, name: str, budget: int | None) -> Agent:
    def run(session: Session) -> Agent:
        agent = get_agent(session, name.lower())
        if agent is None:
            raise NotFound(f"no agent named '{name}'")
        agent.default_budget = budget
        return agent

    return await store.write(run)


async def mark_silent_agents_offline(store: Store, silent_for: timedelta) -> list[str]:
    """Agents whose last beat is older than `silent_for` go offline (3 missed beats)."""
    cutoff = utcnow() - silent_for

    def run(session: Session) -> list[str]:
        # By name: the order of their events, which PostgreSQL would otherwise take
        # from where updates left the rows.
        agents = session.scalars(
            select(Agent)
            .where(Agent.status == "online", Agent.last_seen < cutoff)
            .order_by(Agent.name)
        ).all()
        for agent in agents:
            _set_presence(session, agent, "offline")
        return [agent.name for agent in agents]

    return await store.write(run)

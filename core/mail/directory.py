"""The directory: which addresses exist, so a model picks one instead of guessing.

The reference tools `suggest_address` and `session_participants` (seed 003): an
agent once guessed `opencode@/home`, a path that was not a workspace, and its
mail silently started a stray conversation. Here every address handed out is
built by the one parser from registered workspaces, users and the caller's own
conversations; aliases of conversations the caller is not in never appear.
Contacts, the third tool, are in `core/mail/contacts.py`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from core.address import Address, parse_native
from core.identity.external import is_external_cc
from core.mail.conversations import participants, visible_conversation
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Agent, Conversation, Mail, Participant, User
from core.views import View

MAX_CC_SCAN = 500  # mails searched for the workspace of an agent that was only cc'd


class Candidate(View):
    address: str
    email: str
    kind: Literal["agent", "human", "conversation"]
    description: str
    session_id: str | None = None


class CandidateList(View):
    candidates: list[Candidate]


class ParticipantView(View):
    name: str
    kind: Literal["agent", "human"]
    workspace: str
    address: str
    email: str
    status: Literal["online", "offline"] | None


class ParticipantList(View):
    session_id: str
    session_alias: str | None
    participants: list[ParticipantView]


@dataclass(frozen=True, slots=True)
class _Entry:
    """A candidate and the lower-case texts a query may match: native, email, by-path."""

    candidate: Candidate
    keys: tuple[str, ...]


ConversationIds = Collection[str] | Select[str]


def workspaces_used(session: Session, conv_ids: ConversationIds) -> dict[tuple[str, str], str]:
    """(conversation id, name) → the workspace that name last sent from or was written at."""
    latest: dict[tuple[str, str], tuple[int, str]] = {}
    for name, path in ((Mail.from_name, Mail.from_path), (Mail.to_name, Mail.to_path)):
        rows = session.execute(
            select(Mail.session_id, name, path, func.max(Mail.seq))
            .where(Mail.session_id.in_(conv_ids))
            .group_by(Mail.session_id, name, path)
        )
        for conv_id, who, workspace, seq in rows:
            if (conv_id, who) not in latest or seq > latest[conv_id, who][0]:
                latest[conv_id, who] = (seq, workspace)
    return {key: workspace for key, (_, workspace) in latest.items()}


def _cc_workspaces(
    session: Session, wanted: set[tuple[str, str]], used: dict[tuple[str, str], str]
) -> None:
    """Fill in agents that were only ever cc'd: their workspace is in the cc list."""
    for conv_id in {conv_id for conv_id, _ in wanted}:
        rows = session.scalars(
            select(Mail.cc)
            .where(Mail.session_id == conv_id)
            .order_by(Mail.seq.desc())
            .limit(MAX_CC_SCAN)
        )
        for cc in rows:
            for text in cc:
                if is_external_cc(text):
                    continue
                address = parse_native(text)
                key = (conv_id, address.name)
                if key in wanted and key not in used:
                    used[key] = address.path


def reachable_workspace(agent: Agent, used: str | None) -> str:
    """The workspace used, while the agent still has it; else its first (what `name@` means)."""
    names = [ws["name"] for ws in agent.workspaces]
    if used is not None and used in names:
        return used
    return names[0] if names else ""


def agents_by_name(session: Session, names: Iterable[str] | None = None) -> dict[str, Agent]:
    query = select(Agent).order_by(Agent.name)
    if names is not None:
        query = query.where(Agent.name.in_(list(names)))
    return {agent.name: agent for agent in session.scalars(query)}


def presence(agent: Agent) -> Literal["online", "offline"]:
    return "online" if agent.status == "online" else "offline"


def _people(session: Session, domain: str) -> list[_Entry]:
    """Every agent workspace and every human, by address."""
    entries = []
    for agent in agents_by_name(session).values():
        for ws in agent.workspaces:
            address = Address(agent.name, ws["name"])
            keys = [address.native(), address.email(domain)]
            where = ""
            if ws.get("path"):
                keys.append(Address(agent.name, ws["path"]).native())
                where = f" at {ws['path']}"
            description = f"workspace {ws['name']}{where} · {agent.platform or 'agent'}"
            candidate = Candidate(
                address=address.native(),
                email=address.email(domain),
                kind="agent",
                description=f"{description} · {presence(agent)}",
            )
            entries.append(_Entry(candidate, tuple(key.lower() for key in keys)))
    for name in session.scalars(select(User.name)):
        address = Address(name)
        candidate = Candidate(
            address=address.native(), email=address.email(domain), kind="human", description="human"
        )
        entries.append(_Entry(candidate, (address.native(), address.email(domain).lower())))
    entries.sort(key=lambda e: (e.candidate.address.lower(), e.candidate.address))
    return entries


def _conversations(session: Session, domain: str, principal: Principal) -> list[_Entry]:
    """The caller's named conversations, at each other participant: newest first."""
    mine = select(Participant.session_id).where(Participant.name == principal.name)
    named = select(Conversation.id).where(
        Conversation.id.in_(mine), Conversation.alias.is_not(None)
    )
    rows = session.execute(
        select(Conversation, Participant.name)
        .join(Participant, Participant.session_id == Conversation.id)
        .where(Conversation.id.in_(named), Participant.name != principal.name)
        .order_by(Conversation.updated_at.desc(), Conversation.id, Participant.name)
    ).all()
    agents = agents_by_name(session, {name for _, name in rows})
    used = workspaces_used(session, named)
    _cc_workspaces(
        session, {(c.id, n) for c, n in rows if n in agents and (c.id, n) not in used}, used
    )
    entries = []
    for conv, name in rows:
        agent = agents.get(name)
        workspace = reachable_workspace(agent, used.get((conv.id, name))) if agent else ""
        address = Address(name, workspace, conv.alias)
        candidate = Candidate(
            address=address.native(),
            email=address.email(domain),
            kind="conversation",
            description=f"{conv.subject or '(no subject)'} ({conv.status})",
            session_id=conv.id,
        )
        entries.append(_Entry(candidate, (address.native().lower(), address.email(domain).lower())))
    return entries


def _rank(entry: _Entry, needle: str) -> int | None:
    if any(key.startswith(needle) for key in entry.keys):
        return 0
    if any(needle in key for key in entry.keys):
        return 1
    return None


async def suggest_addresses(
    store: Store, domain: str, principal: Principal, query: str, limit: int = 10
) -> list[Candidate]:
    """Addresses matching a partial one: prefix matches first, then substring matches.

    Within each, agents and humans come first (by address), then the caller's named
    conversations (most recently active first), so the order is stable.
    """
    needle = query.strip().lower()

    def run(session: Session) -> list[_Entry]:
        return [*_people(session, domain), *_conversations(session, domain, principal)]

    ranked = []
    for position, entry in enumerate(await store.read(run)):
        rank = _rank(entry, needle)
        if rank is not None:
            ranked.append((rank, position, entry.candidate))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [candidate for _, _, candidate in ranked[:limit]]


async def conversation_participants(
    store: Store, domain: str, principal: Principal, conv_id: str
) -> ParticipantList:
    """Everyone in a conversation, each at the workspace they used in it, with its alias."""

    def run(session: Session) -> ParticipantList:
        conv = visible_conversation(session, principal, conv_id)
        names = participants(session, conv.id)
        agents = agents_by_name(session, names)
        used = workspaces_used(session, [conv.id])
        _cc_workspaces(session, {(conv.id, n) for n in agents if (conv.id, n) not in used}, used)
        views = []
        for name in names:
            agent = agents.get(name)
            workspace = reachable_workspace(agent, used.get((conv.id, name))) if agent else ""
            address = Address(name, workspace, conv.alias)
            views.append(
                ParticipantView(
                    name=name,
                    kind="agent" if agent else "human",
                    workspace=workspace,
                    address=address.native(),
                    email=address.email(domain),
                    status=presence(agent) if agent else None,
                )
            )
        return ParticipantList(session_id=conv.id, session_alias=conv.alias, participants=views)

    return await store.read(run)

"""Endpoints: the mailbox an address names — a human, one workspace of an agent, or
a role mailbox (`postmaster@`, `abuse@`) that the gateway's admins read.

An unregistered workspace is undeliverable, and the error lists the agent's
workspaces (the reference once delivered `opencode@/home` into a stray
conversation; we refuse it instead). RFC 5321 §4.5.1 requires `postmaster` to
be accepted, RFC 2142 §2 names `abuse`: a mail to either is delivered to every
admin (each is a recipient, the mail's `to` stays the role's address).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, literal_column, null, select, union_all
from sqlalchemy.orm import Session

from core.address import ROLE_NAMES, Address
from core.errors import InvalidAddress, NotFound, UnknownRecipient, UnknownWorkspace
from core.principal import Principal
from core.store.models import Agent, Mail, User, table_of
from core.store.prepared import Prepared


@dataclass(frozen=True, slots=True)
class AgentRow:
    """What addressing needs of an agent, read as one Core row (no ORM identity map,
    no change tracking): every mail to or from an agent resolves one or two."""

    name: str
    workspaces: list[dict[str, str]]
    default_budget: int | None


_AGENTS = table_of(Agent)
# Built once, bound per call: the hottest lookup of the write path.
_AGENT_ROW = select(_AGENTS.c.name, _AGENTS.c.workspaces, _AGENTS.c.default_budget).where(
    _AGENTS.c.name == bindparam("name")
)


def agent_row(session: Session, name: str) -> AgentRow | None:
    row = session.connection().execute(_AGENT_ROW, {"name": name}).first()
    return None if row is None else AgentRow(row[0], row[1] or [], row[2])


_USERS = table_of(User)
# An agent or a human by name, in one statement (names are unique across both).
_NAMED = Prepared(
    union_all(
        select(*_AGENT_ROW.selected_columns, literal_column("1").label("is_agent")).where(
            _AGENTS.c.name == bindparam("name")
        ),
        select(_USERS.c.name, null(), null(), literal_column("0")).where(
            _USERS.c.name == bindparam("name")
        ),
    )
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A resolved mailbox: a human (workspace "") or an agent's workspace."""

    name: str
    workspace: str
    agent: AgentRow | None
    readers: tuple[str, ...] = ()  # a role mailbox: the humans it is delivered to

    @property
    def pair(self) -> tuple[str, str]:
        return (self.name, self.workspace)

    @property
    def recipients(self) -> tuple[str, ...]:
        """The names a mail to this mailbox is delivered to."""
        return self.readers or (self.name,)

    def address(self) -> Address:
        return Address(self.name, self.workspace)


def workspace_of(agent: AgentRow, path: str) -> str:
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


def _role(session: Session, address: Address) -> Endpoint:
    if address.path:
        raise InvalidAddress(f"'{address.name}' is a role mailbox: it has no path")
    admins = session.scalars(select(User.name).where(User.is_admin).order_by(User.name)).all()
    if not admins:
        raise UnknownRecipient(f"undeliverable: nobody reads '{address.name}': there is no admin")
    return Endpoint(address.name, "", None, tuple(admins))


def resolve_endpoint(session: Session, address: Address) -> Endpoint:
    if address.name in ROLE_NAMES:
        return _role(session, address)
    found = _NAMED.first(session.connection(), {"name": address.name})
    if found is not None and found[3]:
        agent = AgentRow(found[0], found[1] or [], found[2])
        return Endpoint(agent.name, workspace_of(agent, address.path), agent)
    if found is not None:
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
    agent = agent_row(session, principal.name)
    if agent is None:
        raise NotFound("register the agent first")
    if from_workspace is not None:
        return Endpoint(agent.name, workspace_of(agent, from_workspace), agent)
    if parent is not None and parent.to_name == agent.name:
        return Endpoint(agent.name, parent.to_path, agent)
    return Endpoint(agent.name, agent.workspaces[0]["name"], agent)

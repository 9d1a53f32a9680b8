"""The workspace a mail was addressed to, as data: `to_workspace: {name, path}`.

A bridge runs the platform in the directory of the workspace a mail names, and must
never split an address string to find it (ARCHITECTURE.md: one address parser).
A mail stores its recipient structured (`to_name`, `to_path` = the workspace's
name, as `core/identity/endpoints.py` resolved it through `core/address/`); the
path comes from the agent's registered workspaces. A workspace removed since the
mail was sent keeps its name with `path: null`; a mail to a human has none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.identity.endpoints import AgentRow
from core.store.models import Agent, Mail
from core.views import AddressedWorkspace

# agent name → {workspace name → path}, for the agents some mails were addressed to.
AgentWorkspaces = Mapping[str, Mapping[str, str]]
NO_AGENTS: AgentWorkspaces = {}


def agent_workspaces(session: Session, mails: Iterable[Mail]) -> AgentWorkspaces:
    """One query for a page of mails (only recipients with a workspace part)."""
    names = {mail.to_name for mail in mails if mail.to_path}
    if not names:
        return NO_AGENTS
    rows = session.execute(select(Agent.name, Agent.workspaces).where(Agent.name.in_(names)))
    return {name: {ws["name"]: ws.get("path", "") for ws in spaces} for name, spaces in rows}


def joined_agent_workspaces(
    rows: Iterable[tuple[Mail, list[dict[str, str]] | None]],
) -> AgentWorkspaces:
    """The same mapping from mails that came with their addressed agent's workspaces
    joined (the tree's one statement, core/mail/tree_sql.py): no query of its own."""
    return {
        mail.to_name: {ws["name"]: ws.get("path", "") for ws in spaces}
        for mail, spaces in rows
        if mail.to_path and spaces is not None
    }


def agent_workspaces_of(agent: AgentRow) -> AgentWorkspaces:
    """The same lookup for one agent already loaded (the send path has it)."""
    return {agent.name: {ws["name"]: ws.get("path", "") for ws in agent.workspaces}}


def addressed_workspace(
    to_name: str, to_path: str, agents: AgentWorkspaces
) -> AddressedWorkspace | None:
    spaces = agents.get(to_name)
    if spaces is None or not to_path:
        return None
    return AddressedWorkspace(name=to_path, path=spaces.get(to_path))

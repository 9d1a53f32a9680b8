"""An agent's workspaces: checked on registration, merged on re-registration, removed
only on purpose.

A workspace is addressed by its name or its path (`builder@ModelRouter`,
`opencode@/home/u/proj`), so every name and path of one agent must name one
workspace only; a second with the same name or path would make an address
ambiguous (409). Registering again adds new workspaces and updates the paths of
known ones, it never drops one: a bridge restarted with a shorter list must not
make the conversations of the others undeliverable. Removing is its own request,
refused while the workspace has open conversations unless forced.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field
from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from core.address import Address
from core.errors import InvalidAddress, InvalidRequest, NotFound, WorkspaceConflict
from core.store.engine import Store
from core.store.models import Agent, Conversation, Mail

MAX_WORKSPACES = 100
OPEN_STATUSES = ("active", "waiting")

StoredWorkspace = dict[str, str]  # {"name", "path"}, as kept in agents.workspaces


class Workspace(BaseModel):
    name: str = Field(min_length=1, max_length=256)
    path: str = Field("", max_length=1024)


def checked_workspaces(workspaces: Sequence[Workspace], agent_name: str) -> list[StoredWorkspace]:
    """The workspaces of one registration, each addressable, none naming another."""
    if not workspaces:
        raise InvalidRequest("an agent needs at least one workspace: [{name, path}]")
    checked = []
    for ws in workspaces:
        for text, what in ((ws.name, "name"), (ws.path, "path")):
            if not text:
                continue
            try:
                Address(agent_name, text)
            except InvalidAddress as error:
                raise InvalidRequest(
                    f"workspace {what} {text!r} cannot be addressed: {error}"
                ) from error
        checked.append({"name": ws.name, "path": ws.path})
    return _unambiguous(checked)


def merged_workspaces(
    current: Sequence[StoredWorkspace], given: Sequence[StoredWorkspace]
) -> list[StoredWorkspace]:
    """`current` with `given` added (new names) or updated (the path of a known name)."""
    merged = [dict(ws) for ws in current]
    by_name = {ws["name"]: ws for ws in merged}
    for ws in given:
        if ws["name"] in by_name:
            by_name[ws["name"]]["path"] = ws["path"]
        else:
            merged.append(dict(ws))
            by_name[ws["name"]] = merged[-1]
    return _unambiguous(merged)


def _unambiguous(workspaces: list[StoredWorkspace]) -> list[StoredWorkspace]:
    if len(workspaces) > MAX_WORKSPACES:
        raise InvalidRequest(f"at most {MAX_WORKSPACES} workspaces")
    names = [ws["name"] for ws in workspaces]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise WorkspaceConflict(f"'{twice[0]}' would name two workspaces: names must be unique")
    owner: dict[str, str] = {}  # every name and path → the workspace it names
    for ws in workspaces:
        for key in {ws["name"], ws["path"]} - {""}:
            other = owner.setdefault(key, ws["name"])
            if other != ws["name"]:
                raise WorkspaceConflict(
                    f"'{key}' would name two workspaces ({other!r} and {ws['name']!r}): "
                    "every workspace name and path must be unique"
                )
    return workspaces


def open_conversations(session: Session, agent: str, workspace: str) -> list[str]:
    """Ids of the open conversations a workspace of the agent takes part in."""
    of_workspace = or_(
        and_(Mail.to_name == agent, Mail.to_path == workspace),
        and_(Mail.from_name == agent, Mail.from_path == workspace),
    )
    query = (
        select(Conversation.id)
        .where(Conversation.status.in_(OPEN_STATUSES))
        .where(Conversation.id.in_(select(Mail.session_id).where(of_workspace)))
        .order_by(Conversation.id)
    )
    return list(session.scalars(query))


async def remove_workspace(store: Store, agent_name: str, workspace: str, force: bool) -> Agent:
    """Drop one workspace of the agent; refused for its last one, and while it has
    open conversations unless `force` (they stay readable, but new mail to the
    workspace is undeliverable)."""

    def run(session: Session) -> Agent:
        agent = session.scalar(select(Agent).where(Agent.name == agent_name).with_for_update())
        if agent is None:
            raise NotFound(f"no agent '{agent_name}'")
        kept = [ws for ws in agent.workspaces if ws["name"] != workspace]
        if len(kept) == len(agent.workspaces):
            raise NotFound(f"agent '{agent_name}' has no workspace '{workspace}'")
        if not kept:
            raise WorkspaceConflict("an agent keeps at least one workspace")
        busy = open_conversations(session, agent_name, workspace)
        if busy and not force:
            raise WorkspaceConflict(
                f"workspace '{workspace}' has {len(busy)} open conversation(s); close them "
                "or remove it with force=true"
            )
        agent.workspaces = kept
        return agent

    return await store.write(run)

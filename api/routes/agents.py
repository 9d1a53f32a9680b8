"""Agents: register with a key, heartbeat, and the directory."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from api.deps import Agent, AgentKey, AnyPrincipal, Human, SettingsDep, StoreDep
from api.paging import Offset
from core.identity import agents, workspaces
from core.identity.workspaces import Workspace
from core.mail.agent_activity import ActivityKind, agent_activity
from core.views import ActivityItem, AgentView

router = APIRouter(tags=["agents"])


class RegisterBody(BaseModel):
    name: str
    workspaces: list[Workspace] = Field(min_length=1)
    platform: str = Field("", max_length=64)


class Registered(BaseModel):
    agent_id: str
    status: Literal["registered"] = "registered"
    agent: AgentView
    agent_key: str | None = Field(
        None, description="With an enrolment (one-time) key: the agent's permanent key, once."
    )


class AgentList(BaseModel):
    agents: list[AgentView]


class ActivityPage(BaseModel):
    items: list[ActivityItem]
    total: int


@router.post("/agent/register")
async def register(
    body: RegisterBody, principal: AgentKey, store: StoreDep, settings: SettingsDep
) -> Registered:
    agent, permanent_key = await agents.register_agent(
        store, principal, body.name, body.workspaces, body.platform, settings.default_budget
    )
    return Registered(
        agent_id=agent.id, agent=agents.agent_view(agent, settings.domain), agent_key=permanent_key
    )


@router.delete("/agent/workspaces/{name}")
async def remove_workspace(
    name: str, principal: Agent, store: StoreDep, settings: SettingsDep, force: bool = False
) -> AgentView:
    """Remove one of the caller's workspaces (registering again never drops one);
    409 while it has open conversations unless `force=true`, and for the last one."""
    assert principal.name is not None
    agent = await workspaces.remove_workspace(store, principal.name, name, force)
    return agents.agent_view(agent, settings.domain)


@router.post("/agent/heartbeat")
async def heartbeat(principal: Agent, store: StoreDep) -> dict[str, Any]:
    return await agents.heartbeat(store, principal)


@router.get("/agents")
async def list_agents(
    _who: AnyPrincipal,
    store: StoreDep,
    settings: SettingsDep,
    status: Literal["online", "offline"] | None = None,
) -> AgentList:
    found = await agents.list_agents(store, status)
    return AgentList(agents=[agents.agent_view(agent, settings.domain) for agent in found])


@router.get("/me/agents/{name}/activity")
async def activity(
    name: Annotated[str, Path(max_length=64)],
    caller: Human,
    store: StoreDep,
    kind: ActivityKind = "turns",
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Offset = 0,
) -> ActivityPage:
    """The agent's recent turns, decisions or failures, newest first: in the conversations
    the caller takes part in (an admin: all of them). An unknown agent is 404."""
    items, total = await agent_activity(store, caller, name, kind, limit, offset)
    return ActivityPage(items=items, total=total)

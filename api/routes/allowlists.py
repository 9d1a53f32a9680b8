"""Agents' outbound allowlists: set by admins, read by the agent itself
(core/outbound/allowlist.py; docs/external-mail.md, "Agents mailing outside")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Admin, Agent, SettingsDep, StoreDep
from core.outbound.allowlist import (
    MAX_ENTRIES,
    MAX_ENTRY_LENGTH,
    agent_allowlist,
    set_agent_allowlist,
)

router = APIRouter(tags=["admin"])
agent_router = APIRouter(tags=["agent"])


class Allowlist(BaseModel):
    entries: list[str] = Field(
        max_length=MAX_ENTRIES,
        description="Mailboxes (`bob@example.com`), domains (`example.com`) and subdomain"
        " patterns (`*.example.com`) the agent may mail directly; sorted, canonical.",
    )


class AllowlistChange(BaseModel):
    entries: list[Annotated[str, Field(max_length=MAX_ENTRY_LENGTH)]] = Field(
        max_length=MAX_ENTRIES,
        description=f"The whole new list (at most {MAX_ENTRIES} entries of at most"
        f" {MAX_ENTRY_LENGTH} characters); an empty list takes every entry away.",
    )


@router.get("/admin/agents/{name}/outbound-allowlist")
async def read_allowlist(name: str, _admin: Admin, store: StoreDep) -> Allowlist:
    return Allowlist(entries=await agent_allowlist(store, name.strip().lower()))


@router.put("/admin/agents/{name}/outbound-allowlist")
async def replace_allowlist(
    name: str, body: AllowlistChange, _admin: Admin, store: StoreDep, settings: SettingsDep
) -> Allowlist:
    """Replace the whole list; mail to anyone else outside waits for a human's decision."""
    entries = await set_agent_allowlist(store, name.strip().lower(), body.entries, settings.domain)
    return Allowlist(entries=entries)


@agent_router.get("/agent/outbound-allowlist")
async def own_allowlist(principal: Agent, store: StoreDep) -> Allowlist:
    """The caller's own list, read-only: mail to others outside is held for a human."""
    assert principal.name is not None
    return Allowlist(entries=await agent_allowlist(store, principal.name))

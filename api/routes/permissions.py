"""Permission requests (agents) and decisions (the addressed human)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Agent, Human, SettingsDep, StoreDep
from core import permissions
from core.views import SendResult

router = APIRouter(tags=["permissions"])


class DecideBody(BaseModel):
    mail_id: str
    decision: str = Field(min_length=1)
    note: str | None = None


class Decided(BaseModel):
    status: str = "decided"
    mail_id: str
    decision: str
    action_sha256: str | None


@router.post("/permission/request")
async def request_permission(
    body: permissions.PermissionRequest, agent: Agent, store: StoreDep, settings: SettingsDep
) -> SendResult:
    return await permissions.request_permission(store, settings.domain, agent, body)


@router.post("/me/permission/decide")
async def decide(body: DecideBody, human: Human, store: StoreDep) -> Decided:
    mail = await permissions.decide_permission(store, human, body.mail_id, body.decision, body.note)
    assert mail.decision is not None
    return Decided(mail_id=mail.id, decision=mail.decision, action_sha256=mail.action_sha256)

"""Permission requests (agents) and decisions (the addressed human)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field

from api.deps import Agent, Human, IdempotencyKeyHeader, SettingsDep, StoreDep
from api.idempotency import replay_header
from api.paging import Offset
from core.approvals import permissions
from core.mail.idempotency import idempotency_key, write_once
from core.views import MailList, SendResult

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
    body: permissions.PermissionRequest,
    agent: Agent,
    store: StoreDep,
    settings: SettingsDep,
    response: Response,
    idempotency: IdempotencyKeyHeader = None,
) -> SendResult:
    key = idempotency_key("permission/request", idempotency, body) if idempotency else None
    write = permissions.permission_writer(settings.domain, agent, body, settings.limits)
    return replay_header(response, await write_once(store, agent, key, write))


@router.get("/me/permissions")
async def my_requests(
    human: Human,
    store: StoreDep,
    settings: SettingsDep,
    state: Literal["open", "decided", "expired"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
    order: Literal["newest", "oldest"] = "newest",
) -> MailList:
    """The permission requests addressed to me; `?state=open` is what awaits my decision."""
    return await permissions.list_requests(
        store, settings.domain, human, state, limit, offset, order
    )


@router.post("/me/permission/decide")
async def decide(body: DecideBody, human: Human, store: StoreDep) -> Decided:
    mail = await permissions.decide_permission(store, human, body.mail_id, body.decision, body.note)
    assert mail.decision is not None
    return Decided(mail_id=mail.id, decision=mail.decision, action_sha256=mail.action_sha256)

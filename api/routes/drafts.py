"""Drafts: a human's unsent mails under `/me/drafts` (agents send at once; they have none)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import Human, SettingsDep, StoreDep
from api.paging import Offset
from core.mail import drafts
from core.mail.drafts import DraftInput, DraftList, DraftView
from core.views import SendResult

router = APIRouter(prefix="/me/drafts", tags=["my drafts"])


@router.post("", status_code=201)
async def save(
    body: DraftInput, caller: Human, store: StoreDep, settings: SettingsDep
) -> DraftView:
    return await drafts.save_draft(store, settings.domain, caller, body)


@router.get("")
async def list_drafts(
    caller: Human,
    store: StoreDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
    include_body: bool = False,
) -> DraftList:
    return await drafts.list_drafts(
        store, settings.domain, caller, limit=limit, offset=offset, include_body=include_body
    )


@router.get("/{draft_id}")
async def get(draft_id: str, caller: Human, store: StoreDep, settings: SettingsDep) -> DraftView:
    return await drafts.get_draft(store, settings.domain, caller, draft_id)


@router.put("/{draft_id}")
async def replace(
    draft_id: str, body: DraftInput, caller: Human, store: StoreDep, settings: SettingsDep
) -> DraftView:
    return await drafts.replace_draft(store, settings.domain, caller, draft_id, body)


@router.delete("/{draft_id}")
async def delete(draft_id: str, caller: Human, store: StoreDep) -> dict[str, str]:
    await drafts.delete_draft(store, caller, draft_id)
    return {"draft_id": draft_id, "status": "deleted"}


@router.post("/{draft_id}/send")
async def send(draft_id: str, caller: Human, store: StoreDep, settings: SettingsDep) -> SendResult:
    return await drafts.send_draft(store, settings.domain, caller, draft_id, settings.limits)

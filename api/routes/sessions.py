"""Conversations: list, detail, rename/close (humans), platform naming sync (agents).

No `from __future__ import annotations`: routes come from a factory (see mail.py).
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api.deps import AnyPrincipal, Human, SettingsDep, StoreDep
from api.paging import Offset
from core.mail import conversations, naming
from core.views import SessionDetail, SessionView


class SessionList(BaseModel):
    sessions: list[SessionView]
    total: int


class ProposalList(BaseModel):
    proposals: list[naming.ProposalView]


class SyncBody(BaseModel):
    session_alias: str | None = Field(None, description="The platform's slug for it.")
    title: str | None = Field(None, description="The platform's title for it.")


def sessions_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.get("")
    async def list_sessions(
        caller: Caller,
        store: StoreDep,
        status: Literal["active", "waiting", "completed"] | None = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
        participant: Annotated[
            str | None,
            Query(max_length=64, description="Only those this agent or person takes part in."),
        ] = None,
    ) -> SessionList:
        views, total = await conversations.list_conversations(
            store, caller, status, limit, offset, participant
        )
        return SessionList(sessions=views, total=total)

    @router.get("/{session_id}")
    async def detail(
        session_id: str, caller: Caller, store: StoreDep, settings: SettingsDep
    ) -> SessionDetail:
        return await conversations.conversation_detail(store, settings.domain, caller, session_id)

    @router.patch("/{session_id}")
    async def change(
        session_id: str, body: conversations.SessionChange, caller: Caller, store: StoreDep
    ) -> SessionView:
        return await conversations.update_conversation(store, caller, session_id, body)

    @router.post("/{session_id}/sync")
    async def sync(session_id: str, body: SyncBody, caller: Caller, store: StoreDep) -> SessionView:
        return await naming.sync_conversation(
            store, caller, session_id, alias=body.session_alias, title=body.title
        )

    @router.get("/{session_id}/proposals")
    async def proposals(
        session_id: str,
        caller: Caller,
        store: StoreDep,
        state: Literal["pending", "accepted", "rejected"] | None = None,
    ) -> ProposalList:
        found = await naming.list_proposals(store, caller, session_id, state)
        return ProposalList(proposals=found)

    @router.post("/{session_id}/proposals/{proposal_id}/accept")
    async def accept(
        session_id: str, proposal_id: str, caller: Caller, store: StoreDep
    ) -> SessionView:
        return await naming.decide_proposal(store, caller, session_id, proposal_id, accept=True)

    @router.post("/{session_id}/proposals/{proposal_id}/reject")
    async def reject(
        session_id: str, proposal_id: str, caller: Caller, store: StoreDep
    ) -> SessionView:
        return await naming.decide_proposal(store, caller, session_id, proposal_id, accept=False)

    return router


shared_router = sessions_router("/sessions", AnyPrincipal, "sessions")
human_router = sessions_router("/me/sessions", Human, "my sessions")

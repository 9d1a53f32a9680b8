"""The conversation tree around a mail, for agents (`/mail/...`) and humans (`/me/mail/...`).

No `from __future__ import annotations`: routes come from a factory (see mail.py).
"""

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import Agent, Human, SettingsDep, StoreDep
from core.mail import tree
from core.views import TreeChunk


def tree_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.get("/{mail_id}/tree")
    async def mail_tree(
        mail_id: str,
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        direction: tree.Direction = "around",
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        cursor: Annotated[str | None, Query(max_length=4096)] = None,
        include_body: bool = False,
    ) -> TreeChunk:
        """One chunk of the reply tree (one SQL statement); follow the cursors for more."""
        return await tree.mail_tree(
            store,
            settings.domain,
            caller,
            mail_id,
            direction=direction,
            limit=limit,
            cursor=cursor,
            include_body=include_body,
        )

    return router


agent_router = tree_router("/mail", Agent, "agent mail")
human_router = tree_router("/me/mail", Human, "my mail")

"""Search: `/search` for agents, `/me/search` for humans (not under `/mail/`,
where `{mail_id}` would take the word). No `from __future__ import annotations`:
routes come from a factory (see mail.py).
"""

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import Agent, Human, SettingsDep, StoreDep
from core.mail.search import search_mail
from core.mail.search_query import MAX_QUERY_CHARS
from core.views import SearchResults

MAX_OFFSET = 10_000


def search_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.get("/search")
    async def search(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        q: Annotated[
            str,
            Query(
                max_length=MAX_QUERY_CHARS,
                description="Words, quoted phrases and filters: from: to: alias: "
                "is:unread is:read has:attachment type:permission|question|summary.",
            ),
        ] = "",
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> SearchResults:
        """The mail you sent or received that matches, best match first, then newest."""
        return await search_mail(
            store,
            settings.domain,
            caller,
            q,
            limit=limit,
            offset=offset,
            count_cap=settings.search_count_cap,
        )

    return router


agent_router = search_router("", Agent, "agent mail")
human_router = search_router("/me", Human, "my mail")

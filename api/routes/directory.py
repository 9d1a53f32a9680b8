"""Addressing helpers: address suggestions, contacts, a conversation's participants.

The same endpoints for agents and humans, and under `/me/...` for humans (where the
web UI finds everything it uses). No `from __future__ import annotations`: routes
come from a factory (see mail.py).
"""

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import AnyPrincipal, Human, SettingsDep, StoreDep
from api.paging import Offset
from core.mail import contacts, directory
from core.mail.contacts import ContactList
from core.mail.delivery_check import check_address
from core.mail.directory import CandidateList, ParticipantList
from core.views import AddressCheck


def directory_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.get("/addresses/suggest")
    async def suggest(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        q: Annotated[str, Query(max_length=1200, description="A partial address.")] = "",
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
    ) -> CandidateList:
        found = await directory.suggest_addresses(store, settings.domain, caller, q, limit)
        return CandidateList(candidates=found)

    @router.get("/addresses/check")
    async def check(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        address: Annotated[str, Query(max_length=1200, description="Native or email form.")],
        reply_to: Annotated[
            str | None,
            Query(max_length=64, description="The mail_id the mail would answer, as on send."),
        ] = None,
    ) -> AddressCheck:
        """Whether a mail to `address` would be delivered now and which conversation it
        would join (`reaches`), and if not the error a send (or SMTP `RCPT TO`) would
        give: always 200, the verdict is in the body."""
        return await check_address(
            store, settings.domain, caller, address, limits=settings.limits, reply_to=reply_to
        )

    @router.get("/contacts")
    async def list_contacts(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
    ) -> ContactList:
        return await contacts.list_contacts(
            store, settings.domain, caller, limit=limit, offset=offset
        )

    @router.get("/sessions/{session_id}/participants")
    async def participants(
        session_id: str, caller: Caller, store: StoreDep, settings: SettingsDep
    ) -> ParticipantList:
        return await directory.conversation_participants(store, settings.domain, caller, session_id)

    return router


shared_router = directory_router("", AnyPrincipal, "directory")
human_router = directory_router("/me", Human, "my directory")

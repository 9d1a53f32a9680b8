"""Mail: the same endpoints for agents (`/mail/...`) and humans (`/me/mail/...`).

No `from __future__ import annotations` here: the routes are built by a factory
whose caller dependency is a local variable, which FastAPI must see evaluated.
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel

from api.deps import Agent, Human, IdempotencyKeyHeader, SettingsDep, StoreDep
from api.idempotency import replay_header
from api.paging import Offset
from api.send_handler import HANDLED
from core.errors import Forbidden
from core.mail import list_rows, placing, reading
from core.mail.forward import ForwardRequest, forward_mail
from core.mail.idempotency import Outcome, idempotency_key, write_once
from core.mail.list_rows import MailRowList
from core.mail.send import SendRequest, mail_writer
from core.principal import Principal
from core.replies.marks import get_marked_mail
from core.settings import Settings
from core.store.engine import Store
from core.views import MailList, MailView, SendResult


async def send_mail_as(
    request: Request, caller: Principal, body: SendRequest, idempotency: str | None
) -> Outcome:
    """A send's own work. The hottest route takes the store and the settings from the app
    rather than as two more dependencies, which FastAPI would solve on every request."""
    store: Store = request.app.state.store
    settings: Settings = request.app.state.settings
    key = idempotency_key("mail/send", idempotency, body) if idempotency else None
    write = mail_writer(settings.domain, caller, body, limits=settings.limits)
    return await write_once(store, caller, key, write)


class DeliveryState(BaseModel):
    mail_id: str
    status: Literal["unread", "read", "archived", "deleted"]


def mail_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.post("/send")
    async def send(
        body: SendRequest,
        caller: Caller,
        request: Request,
        response: Response,
        idempotency: IdempotencyKeyHeader = None,
    ) -> SendResult:
        # Served by api/send_handler.py; FastAPI's handler runs this for the cases off a
        # send's path (malformed or invalid bodies, other content types), and documents it.
        return replay_header(response, await send_mail_as(request, caller, body, idempotency))

    HANDLED[send] = send_mail_as

    @router.get("/inbox")
    async def inbox(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        status: reading.InboxStatus = "all",
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
        order: reading.Order = "newest",
        mark_read: bool = False,
        include_body: bool = False,
        folder_id: Annotated[str | None, Query(max_length=64)] = None,
    ) -> MailList:
        if mark_read and caller.via == "login":
            # A GET must not change state: a foreign page could make the browser send it.
            raise Forbidden(
                "mark_read=true changes state, which a GET with the login cookie may not: "
                "mark mails with POST …/{mail_id}/read, or use a key"
            )
        return await reading.inbox(
            store,
            settings.domain,
            caller,
            status=status,
            limit=limit,
            offset=offset,
            order=order,
            mark_read=mark_read,
            include_body=include_body,
            folder_id=folder_id,
        )

    @router.get("/sent")
    async def sent(
        caller: Caller,
        store: StoreDep,
        settings: SettingsDep,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
        include_body: bool = False,
    ) -> MailList:
        return await reading.sent(
            store, settings.domain, caller, limit=limit, offset=offset, include_body=include_body
        )

    _add_row_routes(router, Caller)
    _add_reading_routes(router, Caller)
    _add_state_routes(router, Caller)
    return router


def _add_row_routes(router: APIRouter, Caller: Any) -> None:
    """The lists' rows: what a row shows (excerpt, tasks, attachment count), nothing more."""

    @router.get("/inbox/rows", response_model=MailRowList)
    async def inbox_rows(
        caller: Caller,
        store: StoreDep,
        status: reading.InboxStatus = "all",
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
        order: reading.Order = "newest",
        folder_id: Annotated[str | None, Query(max_length=64)] = None,
    ) -> Response:
        """The inbox (or archive, Trash, a folder of yours) as list rows, as `/inbox` pages."""
        return _json(
            await list_rows.inbox_rows(
                store,
                caller,
                status=status,
                limit=limit,
                offset=offset,
                order=order,
                folder_id=folder_id,
            )
        )

    @router.get("/sent/rows", response_model=MailRowList)
    async def sent_rows(
        caller: Caller,
        store: StoreDep,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Offset = 0,
    ) -> Response:
        """The mail you sent as list rows, newest first."""
        return _json(await list_rows.sent_rows(store, caller, limit=limit, offset=offset))


def _json(content: bytes) -> Response:
    """A body the domain wrote as JSON already (core/mail/list_rows.py)."""
    return Response(content, media_type="application/json")


def _add_reading_routes(router: APIRouter, Caller: Any) -> None:
    @router.get("/{mail_id}")
    async def get(mail_id: str, caller: Caller, store: StoreDep, settings: SettingsDep) -> MailView:
        """One mail in full; `outside` marks a mail that came in from outside."""
        return await get_marked_mail(store, settings.domain, caller, mail_id)

    @router.post("/{mail_id}/forward")
    async def forward(
        mail_id: str, body: ForwardRequest, caller: Caller, store: StoreDep, settings: SettingsDep
    ) -> SendResult:
        """Forward a mail you sent or received: it is quoted, with its attachments."""
        return await forward_mail(store, settings.domain, caller, mail_id, body, settings.limits)


async def _state(store: Any, caller: Any, mail_id: str, **change: bool) -> DeliveryState:
    status = await placing.set_delivery_state(store, caller, mail_id, **change)
    return DeliveryState(mail_id=mail_id, status=status)


def _add_state_routes(router: APIRouter, Caller: Any) -> None:
    """Read, unread, archive, unarchive, delete (to Trash) and restore: one mail's state."""

    @router.post("/{mail_id}/read")
    async def mark_read(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        return await _state(store, caller, mail_id, read=True)

    @router.post("/{mail_id}/unread")
    async def mark_unread(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        return await _state(store, caller, mail_id, read=False)

    @router.post("/{mail_id}/archive")
    async def archive(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        return await _state(store, caller, mail_id, archived=True)

    @router.post("/{mail_id}/unarchive")
    async def unarchive(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        return await _state(store, caller, mail_id, archived=False)

    @router.post("/{mail_id}/delete")
    async def delete(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        """Move to Trash (humans only): nothing is destroyed, `restore` brings it back."""
        return await _state(store, caller, mail_id, deleted=True)

    @router.post("/{mail_id}/restore")
    async def restore(mail_id: str, caller: Caller, store: StoreDep) -> DeliveryState:
        """Out of Trash, back to the inbox or the archive, wherever it was."""
        return await _state(store, caller, mail_id, deleted=False)


agent_router = mail_router("/mail", Agent, "agent mail")
human_router = mail_router("/me/mail", Human, "my mail")

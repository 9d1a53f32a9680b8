"""Webhook endpoints: my own (`/me/webhooks`, the events addressed to me) and the admins'
(`/admin/webhooks`, everyone's events), with the same operations (core/webhooks/).

The signing secret is in the answer that made it (or rotated it), never again; those
answers are to POSTs, which are never compressed (api/compression.py).
"""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from api.deps import Admin, Human, SecretsDep, SettingsDep, StoreDep
from core.push.endpoints import MAX_ENDPOINT_CHARS
from core.webhooks import endpoints
from core.webhooks.endpoints import MAX_DELIVERIES_LISTED
from core.webhooks.events import EVENT_TYPES
from core.webhooks.owners import Who
from core.webhooks.queue import replay
from core.webhooks.views import WebhookCreated, WebhookDeliveryView, WebhookView

router = APIRouter(tags=["webhooks"])
_EVENT_PATTERN = "^(" + "|".join(t.replace(".", r"\.") for t in EVENT_TYPES) + ")$"
# Checked by the pattern; the enum tells a client (the web UI's types) which there are.
EventName = Annotated[
    str, Field(pattern=_EVENT_PATTERN, json_schema_extra={"enum": list(EVENT_TYPES)})
]


class WebhookBody(BaseModel):
    url: str = Field(min_length=1, max_length=MAX_ENDPOINT_CHARS)
    events: list[EventName] = Field(
        default_factory=lambda: list(EVENT_TYPES),
        min_length=1,
        max_length=len(EVENT_TYPES),
        description="The event types to deliver (all when left out).",
    )
    description: str = Field("", max_length=200)


class ReplayBody(BaseModel):
    event_id: int = Field(ge=1, le=2**63 - 1)


class WebhookList(BaseModel):
    webhooks: list[WebhookView]


class DeliveryList(BaseModel):
    deliveries: list[WebhookDeliveryView]


async def _mine(human: Human) -> Who:
    return Who(human.name)


async def _admins(admin: Admin) -> Who:
    return Who(admin.name, everyone=True)


def _routes(prefix: str, who_of: Callable[..., Awaitable[Who]]) -> None:
    """The same operations under `prefix`, for the callers `who_of` names."""
    WhoDep = Annotated[Who, Depends(who_of)]

    @router.post(prefix, status_code=201)
    async def create_webhook(
        body: WebhookBody, who: WhoDep, store: StoreDep, box: SecretsDep, settings: SettingsDep
    ) -> WebhookCreated:
        return await endpoints.register_endpoint(
            store,
            box,
            who,
            body.url,
            body.events,
            body.description,
            allow_private=settings.webhook_allow_private_endpoints,
        )

    @router.get(prefix)
    async def list_webhooks(who: WhoDep, store: StoreDep) -> WebhookList:
        return WebhookList(webhooks=await endpoints.list_endpoints(store, who))

    @router.get(prefix + "/{webhook_id}")
    async def get_webhook(webhook_id: str, who: WhoDep, store: StoreDep) -> WebhookView:
        return await endpoints.get_endpoint(store, who, webhook_id)

    @router.delete(prefix + "/{webhook_id}")
    async def delete_webhook(webhook_id: str, who: WhoDep, store: StoreDep) -> dict[str, str]:
        await endpoints.delete_endpoint(store, who, webhook_id)
        return {"status": "deleted"}

    @router.post(prefix + "/{webhook_id}/enable")
    async def enable_webhook(webhook_id: str, who: WhoDep, store: StoreDep) -> WebhookView:
        return await endpoints.enable_endpoint(store, who, webhook_id)

    @router.post(prefix + "/{webhook_id}/rotate-secret")
    async def rotate_webhook_secret(
        webhook_id: str, who: WhoDep, store: StoreDep, box: SecretsDep
    ) -> WebhookCreated:
        return await endpoints.rotate_secret(store, box, who, webhook_id)

    @router.get(prefix + "/{webhook_id}/deliveries")
    async def list_webhook_deliveries(
        webhook_id: str,
        who: WhoDep,
        store: StoreDep,
        limit: Annotated[int, Query(ge=1, le=MAX_DELIVERIES_LISTED)] = 50,
    ) -> DeliveryList:
        found = await endpoints.list_deliveries(store, who, webhook_id, limit)
        return DeliveryList(deliveries=found)

    @router.post(prefix + "/{webhook_id}/replay", status_code=202)
    async def replay_webhook_event(
        webhook_id: str, body: ReplayBody, who: WhoDep, store: StoreDep
    ) -> WebhookDeliveryView:
        return await replay(store, who, webhook_id, body.event_id)


_routes("/me/webhooks", _mine)
_routes("/admin/webhooks", _admins)

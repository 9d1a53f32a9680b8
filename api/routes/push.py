"""Web Push: the gateway's public VAPID key, and my browsers' subscriptions.

A browser subscribes with the key from `GET /me/push` and hands the subscription it
got (`PushSubscription.toJSON()`) to `POST /me/push/subscriptions`; from then on a
permission request or question to me is pushed to it (core/push/).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from api.deps import Human, SecretsDep, SettingsDep, StoreDep
from core.push import subscriptions
from core.push.endpoints import MAX_ENDPOINT_CHARS
from core.push.keys import ensure_vapid_key, public_key_of
from core.views import PushSubscriptionView

router = APIRouter(tags=["push"])
_B64URL = r"^[A-Za-z0-9_-]+={0,2}$"


class PushInfo(BaseModel):
    public_key: str = Field(
        description="The VAPID public key (base64url, an uncompressed P-256 point): the "
        "`applicationServerKey` of `PushManager.subscribe`."
    )


class PushKeys(BaseModel):
    p256dh: str = Field(min_length=80, max_length=100, pattern=_B64URL)
    auth: str = Field(min_length=16, max_length=32, pattern=_B64URL)


class SubscriptionBody(BaseModel):
    """`PushSubscription.toJSON()` as the browser gives it."""

    endpoint: str = Field(min_length=1, max_length=MAX_ENDPOINT_CHARS)
    keys: PushKeys


class SubscriptionList(BaseModel):
    subscriptions: list[PushSubscriptionView]


@router.get("/me/push")
async def push_info(_human: Human, store: StoreDep, secrets: SecretsDep) -> PushInfo:
    return PushInfo(public_key=public_key_of(await ensure_vapid_key(store, secrets)))


@router.get("/me/push/subscriptions")
async def list_push_subscriptions(human: Human, store: StoreDep) -> SubscriptionList:
    return SubscriptionList(subscriptions=await subscriptions.list_subscriptions(store, human.name))


@router.post("/me/push/subscriptions", status_code=201)
async def subscribe_push(
    body: SubscriptionBody,
    request: Request,
    human: Human,
    store: StoreDep,
    settings: SettingsDep,
) -> PushSubscriptionView:
    return await subscriptions.subscribe(
        store,
        human.name,
        body.endpoint,
        body.keys.p256dh,
        body.keys.auth,
        request.headers.get("user-agent", "")[:200],
        allow_private=settings.push_allow_private_endpoints,
    )


@router.delete("/me/push/subscriptions/{subscription_id}")
async def revoke_push_subscription(
    subscription_id: str, human: Human, store: StoreDep
) -> dict[str, str]:
    await subscriptions.revoke_subscription(store, human.name, subscription_id)
    return {"status": "revoked"}

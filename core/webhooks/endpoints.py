"""Webhook endpoints: registered, listed, deleted, enabled again, given a new secret.

Each endpoint signs with a secret of its own (`whsec_` and 24 random bytes, base64, as
the Standard Webhooks specification writes them), made here and shown once, in the
answer that made it (or rotated it); the row keeps it sealed under the gateway's secret
key (core/secrets/box.py), bound to the endpoint's id. The URL is checked as push
endpoints are (core/push/endpoints.py): https, a public host.
"""

from __future__ import annotations

import base64
import secrets

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from core.errors import LimitReached
from core.push.endpoints import check_endpoint
from core.secrets.box import SecretBox
from core.store.engine import Store, wake_after_commit
from core.store.models import WebhookDelivery, WebhookEndpoint, new_id, utcnow
from core.webhooks.fanout import newest_event
from core.webhooks.owners import Who, owned_endpoint
from core.webhooks.queue import WAKE, delivery_view
from core.webhooks.views import WebhookCreated, WebhookDeliveryView, WebhookView

MAX_ENDPOINTS = 20  # per person; the admins' endpoints together have the same limit
MAX_DELIVERIES_LISTED = 100


def make_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def secret_purpose(webhook_id: str) -> str:
    """The sealed secret's associated data: it opens only as this endpoint's."""
    return f"webhook_secret:{webhook_id}"


def view(row: WebhookEndpoint) -> WebhookView:
    return WebhookView(
        webhook_id=row.id,
        url=row.url,
        events=list(row.events),
        description=row.description,
        owner=row.owner,
        scope="all" if row.scope == "all" else "own",
        enabled=row.enabled,
        failures=row.failures,
        disabled_reason=row.disabled_reason,
        created_at=row.created_at,
    )


async def check_url(url: str, *, allow_private: bool) -> None:
    await check_endpoint(url, allow_private=allow_private, what="webhook endpoint", field="url")


async def register_endpoint(
    store: Store,
    box: SecretBox,
    who: Who,
    url: str,
    events: list[str],
    description: str,
    *,
    allow_private: bool,
) -> WebhookCreated:
    await check_url(url, allow_private=allow_private)
    webhook_id, secret = new_id(), make_secret()

    def run(session: Session) -> WebhookCreated:
        count = session.scalar(select(func.count()).where(who.sees()))
        if (count or 0) >= MAX_ENDPOINTS:
            raise LimitReached(f"at most {MAX_ENDPOINTS} webhook endpoints: delete one first")
        row = WebhookEndpoint(
            id=webhook_id,
            owner=who.name,
            scope=who.scope,
            url=url,
            events=list(dict.fromkeys(events)),
            description=description,
            secret=box.seal(secret.encode("ascii"), secret_purpose(webhook_id)),
            enabled=True,
            failures=0,
            disabled_reason="",
            hears_after=newest_event(session),
            created_at=utcnow(),
        )
        session.add(row)
        session.flush()
        return WebhookCreated(**view(row).model_dump(), secret=secret)

    return await store.write(run)


async def list_endpoints(store: Store, who: Who) -> list[WebhookView]:
    def run(session: Session) -> list[WebhookView]:
        rows = session.scalars(
            select(WebhookEndpoint).where(who.sees()).order_by(WebhookEndpoint.created_at)
        )
        return [view(row) for row in rows]

    return await store.read(run)


async def get_endpoint(store: Store, who: Who, webhook_id: str) -> WebhookView:
    return await store.read(lambda s: view(owned_endpoint(s, who, webhook_id)))


async def delete_endpoint(store: Store, who: Who, webhook_id: str) -> None:
    """The endpoint and every delivery still owed to it."""

    def run(session: Session) -> None:
        endpoint = owned_endpoint(session, who, webhook_id)
        session.execute(delete(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint.id))
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == endpoint.id))

    await store.write(run)


async def enable_endpoint(store: Store, who: Who, webhook_id: str) -> WebhookView:
    """Enabled again after it was disabled: the deliveries left pending go out now."""

    def run(session: Session) -> WebhookView:
        endpoint = owned_endpoint(session, who, webhook_id, lock=True)
        if not endpoint.enabled:  # what happened while it was off is not owed
            endpoint.hears_after = newest_event(session)
        endpoint.enabled, endpoint.failures, endpoint.disabled_reason = True, 0, ""
        session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.endpoint_id == endpoint.id, WebhookDelivery.state == "pending")
            .values(due_at=utcnow(), claimed_until=None)
        )
        session.flush()
        wake_after_commit(session, [WAKE])
        return view(endpoint)

    return await store.write(run)


async def rotate_secret(store: Store, box: SecretBox, who: Who, webhook_id: str) -> WebhookCreated:
    """A new secret from now on (shown once, here); the old one signs nothing more."""
    secret = make_secret()

    def run(session: Session) -> WebhookCreated:
        endpoint = owned_endpoint(session, who, webhook_id, lock=True)
        endpoint.secret = box.seal(secret.encode("ascii"), secret_purpose(endpoint.id))
        session.flush()
        return WebhookCreated(**view(endpoint).model_dump(), secret=secret)

    return await store.write(run)


async def list_deliveries(
    store: Store, who: Who, webhook_id: str, limit: int = MAX_DELIVERIES_LISTED
) -> list[WebhookDeliveryView]:
    """The endpoint's deliveries, newest first."""

    def run(session: Session) -> list[WebhookDeliveryView]:
        endpoint = owned_endpoint(session, who, webhook_id)
        rows = session.scalars(
            select(WebhookDelivery)
            .where(WebhookDelivery.endpoint_id == endpoint.id)
            .order_by(WebhookDelivery.id.desc())
            .limit(min(limit, MAX_DELIVERIES_LISTED))
        )
        return [delivery_view(row) for row in rows]

    return await store.read(run)

"""Delivery rows, made from events (core/webhooks/fanout.py) or by a replay.

A delivery names the event it tells of and carries the body a receiver gets; replaying an
event copies its earlier delivery (the same body and `webhook-id`). Rows written here
wake the senders of every replica after COMMIT (`WAKE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.store.bus import ANY_EVENT, Pushed
from core.store.committed_events import wake_after_commit
from core.store.engine import Store
from core.store.models import WebhookDelivery, isoformat, table_of, utcnow
from core.webhooks.events import body, told
from core.webhooks.owners import Who, owned_endpoint
from core.webhooks.views import WebhookDeliveryView

WAKE = ANY_EVENT  # the senders wake at every commit that wrote events, and at this
_DELIVERIES = table_of(WebhookDelivery)


def queue_deliveries(
    session: Session, endpoints: Sequence[tuple[Any, ...]], events: list[Pushed]
) -> None:
    now = utcnow()
    timestamp = isoformat(now)
    rows = []
    for change in told(events):
        for endpoint_id, owner, scope, hears in endpoints:
            everyone = scope == "all"
            event_id = change.event_id if everyone else change.rows.get(owner)
            if change.type not in hears or event_id is None:
                continue
            rows.append(
                {
                    "endpoint_id": endpoint_id,
                    "event_id": event_id,
                    "event_type": change.type,
                    "payload": body(change, event_id, timestamp, everyone=everyone),
                    "state": "pending",
                    "attempts": 0,
                    "due_at": now,
                    "last_error": "",
                    "created_at": now,
                }
            )
    if rows:
        session.execute(insert(_DELIVERIES), rows)


async def replay(store: Store, who: Who, webhook_id: str, event_id: int) -> WebhookDeliveryView:
    """Queue the event `event_id` to the endpoint again, as it was first sent (its body
    and its `webhook-id`), whatever became of the earlier deliveries."""

    def run(session: Session) -> WebhookDeliveryView:
        endpoint = owned_endpoint(session, who, webhook_id)
        earlier = session.scalar(
            select(WebhookDelivery)
            .where(
                WebhookDelivery.endpoint_id == endpoint.id,
                WebhookDelivery.event_id == event_id,
            )
            .order_by(WebhookDelivery.id)
            .limit(1)
        )
        if earlier is None:
            raise NotFound("this endpoint was never sent that event")
        now = utcnow()
        again = WebhookDelivery(
            endpoint_id=endpoint.id,
            event_id=event_id,
            event_type=earlier.event_type,
            payload=earlier.payload,
            state="pending",
            attempts=0,
            due_at=now,
            last_error="",
            created_at=now,
        )
        session.add(again)
        session.flush()
        wake_after_commit(session, [WAKE])
        return delivery_view(again)

    return await store.write(run)


def delivery_view(row: WebhookDelivery) -> WebhookDeliveryView:
    return WebhookDeliveryView(
        delivery_id=row.id,
        event_id=row.event_id,
        event_type=row.event_type,
        state=row.state,
        attempts=row.attempts,
        next_attempt_at=row.due_at if row.state == "pending" else None,
        last_status=row.last_status,
        last_error=row.last_error,
        created_at=row.created_at,
        finished_at=row.finished_at,
    )

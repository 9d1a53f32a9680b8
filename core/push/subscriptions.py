"""Each person's push subscriptions: made from a browser's `PushSubscriptionJSON`,
listed on the Account page, revoked there or dropped when the push service says the
subscription is gone."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.errors import LimitReached, NotFound
from core.push.endpoints import check_endpoint
from core.store.engine import Store
from core.store.models import PushSubscription, utcnow
from core.views import PushSubscriptionView

# Browsers and devices one person subscribes at once.
MAX_SUBSCRIPTIONS = 20


def _view(row: PushSubscription) -> PushSubscriptionView:
    return PushSubscriptionView(
        subscription_id=row.id,
        push_service=urlsplit(row.endpoint).hostname or "",
        user_agent=row.user_agent,
        created_at=row.created_at,
    )


async def subscribe(
    store: Store,
    owner: str,
    endpoint: str,
    p256dh: str,
    auth: str,
    user_agent: str,
    *,
    allow_private: bool,
) -> PushSubscriptionView:
    """Keep the subscription; the same endpoint subscribed again (a browser's new keys,
    or another person on that browser) replaces the old one."""
    await check_endpoint(endpoint, allow_private=allow_private)

    def run(session: Session) -> PushSubscriptionView:
        session.execute(delete(PushSubscription).where(PushSubscription.endpoint == endpoint))
        count = session.scalar(select(func.count()).where(PushSubscription.owner == owner))
        if (count or 0) >= MAX_SUBSCRIPTIONS:
            raise LimitReached(f"at most {MAX_SUBSCRIPTIONS} push subscriptions: revoke one first")
        row = PushSubscription(
            owner=owner,
            endpoint=endpoint,
            p256dh=p256dh,
            auth=auth,
            user_agent=user_agent,
            created_at=utcnow(),
        )
        session.add(row)
        session.flush()
        return _view(row)

    return await store.write(run)


async def list_subscriptions(store: Store, owner: str) -> list[PushSubscriptionView]:
    def run(session: Session) -> list[PushSubscriptionView]:
        rows = session.scalars(
            select(PushSubscription)
            .where(PushSubscription.owner == owner)
            .order_by(PushSubscription.created_at.desc(), PushSubscription.id)
        )
        return [_view(row) for row in rows]

    return await store.read(run)


async def revoke_subscription(store: Store, owner: str, subscription_id: str) -> None:
    """Forget it (its pending pushes with it); someone else's is as unknown as none."""

    def run(session: Session) -> None:
        result = session.execute(
            delete(PushSubscription).where(
                PushSubscription.id == subscription_id, PushSubscription.owner == owner
            )
        )
        if not result.rowcount:  # type: ignore[attr-defined]
            raise NotFound("no such push subscription")

    await store.write(run)

"""Web Push: each person's browser subscriptions, and the pushes still to send."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, new_id, utcnow


class PushSubscription(Base):
    """A browser's push subscription (the Push API's `PushSubscriptionJSON`), made by a
    person on one device. The endpoint is a capability URL of the push service: one
    device is subscribed once, by whoever subscribed it last."""

    __tablename__ = "push_subscriptions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    endpoint: Mapped[str] = mapped_column(String(2048), unique=True)
    # RFC 8291: the browser's P-256 public key and its 16-byte auth secret, base64url.
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    user_agent: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PushJob(Base):
    """One push to one subscription, written in the transaction of the mail it tells of
    and sent after COMMIT by whichever replica claims it first (core/push/jobs.py)."""

    __tablename__ = "push_jobs"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    subscription_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("push_subscriptions.id", ondelete="CASCADE"), index=True
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Not sent before this time (the backoff after a failed try).
    due_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    # A replica's claim: the job is its own until then, and free again after (a replica
    # that died while sending leaves it to another).
    claimed_until: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

"""Webhooks: the endpoints people and admins register, and the deliveries still owed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, new_id, utcnow


class WebhookEndpoint(Base):
    """An https URL the gateway posts events to, signed with the endpoint's own secret
    (Standard Webhooks). A person's endpoint hears the events addressed to them; an
    admin's (`scope` "all") hears everyone's."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    scope: Mapped[str] = mapped_column(String(8), default="own")  # own | all
    url: Mapped[str] = mapped_column(String(2048))
    events: Mapped[list[str]] = mapped_column(JSON)
    description: Mapped[str] = mapped_column(String(200), default="")
    # The `whsec_` signing secret, sealed (core/secrets/box.py): shown once, at creation.
    secret: Mapped[str] = mapped_column(String(200))
    enabled: Mapped[bool] = mapped_column(default=True)
    # Deliveries that failed for good since the last one that arrived.
    failures: Mapped[int] = mapped_column(Integer, default=0)
    disabled_reason: Mapped[str] = mapped_column(String(200), default="")
    # The newest event id when it was made or last enabled: it hears the events after it
    # (ids ascend in commit order, core/store/committed_events.py).
    hears_after: Mapped[int] = mapped_column(SeqType, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WebhookDelivery(Base):
    """One event owed to one endpoint: made from the event rows after their COMMIT
    (core/webhooks/fanout.py), posted by whichever replica claims it."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    endpoint_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    event_id: Mapped[int] = mapped_column(SeqType)  # the `events` row it tells of
    event_type: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(12), default="pending")  # delivered | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    claimed_until: Mapped[datetime | None] = mapped_column(default=None)
    last_status: Mapped[int | None] = mapped_column(Integer, default=None)
    last_error: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)

    __table_args__ = (Index("ix_webhook_deliveries_endpoint_event", "endpoint_id", "event_id"),)

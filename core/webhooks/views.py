"""What the webhook operations hand out: also the API's response schemas."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from core.views import View


class WebhookView(View):
    """A webhook endpoint (core/webhooks/); its signing secret is shown only when made."""

    webhook_id: str
    url: str
    events: list[str]
    description: str
    owner: str
    scope: Literal["own", "all"] = Field(
        description="`own`: the events addressed to its owner; `all`: everyone's (an admin's)."
    )
    enabled: bool
    failures: int = Field(description="Deliveries given up on since the last one that arrived.")
    disabled_reason: str
    created_at: datetime


class WebhookCreated(WebhookView):
    secret: str = Field(
        description="The `whsec_` signing secret (Standard Webhooks): shown this once."
    )


class WebhookDeliveryView(View):
    delivery_id: int
    event_id: int
    event_type: str
    state: Literal["pending", "delivered", "failed"]
    attempts: int
    next_attempt_at: datetime | None
    last_status: int | None
    last_error: str
    created_at: datetime
    finished_at: datetime | None

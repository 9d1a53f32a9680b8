"""Views of a person's own settings: their browsers' Web Push subscriptions and their
mailboxes outside the gateway."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from core.views import View


class PushSubscriptionView(View):
    """A browser subscribed to Web Push (core/push/); the endpoint's path is a secret of
    the push service and is not shown, only its host."""

    subscription_id: str
    push_service: str = Field(description="The host of the push service.")
    user_agent: str
    created_at: datetime


class ExternalAddressView(View):
    """A mailbox of mine outside the gateway (core/replies/addresses.py)."""

    address_id: str
    address: str = Field(description="An RFC 5321 mailbox, the domain lower-cased.")
    verified: bool
    verified_at: datetime | None
    requests: bool = Field(
        description="Permission requests and questions to me are also sent here (once verified)."
    )
    other_mail: bool = Field(description="Other mail to me is also sent here (once verified).")
    created_at: datetime

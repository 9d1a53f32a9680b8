"""Views of an address check (core/mail/delivery_check.py): whether a send to an
address would be delivered now, and which conversation it would join."""

from __future__ import annotations

from typing import Literal

from core.views import Budget, View


class ErrorView(View):
    code: str
    message: str


class ReachedConversation(View):
    """The existing conversation a mail to an address would join."""

    session_id: str
    session_alias: str | None
    subject: str
    status: Literal["active", "waiting", "completed"]
    budget_limit: Budget
    budget_used: int
    budget_remaining: Budget


class AddressReach(View):
    """Which conversation a mail to the address goes to, by the send's own routing:
    `new` (`.new`), `default` (the default conversation of sender and recipient;
    `conversation` is null until a first mail makes it), `alias` (`.alias`),
    `reply` (the conversation of the mail replied to)."""

    by: Literal["new", "default", "alias", "reply"]
    conversation: ReachedConversation | None


class AddressCheck(View):
    """Whether a send to `address` would be delivered now; if not, the send's error.
    `reaches` says where it would go (null when it would not be delivered)."""

    address: str
    deliverable: bool
    native: str | None
    email: str | None
    kind: Literal["human", "agent"] | None
    error: ErrorView | None
    reaches: AddressReach | None

"""Whose endpoint is whose: a person's own, or the admins' (hearing everyone).

An endpoint that is not the caller's does not exist for them (`NotFound`), as a draft
or a key of someone else's.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.store.models import WebhookEndpoint


@dataclass(frozen=True, slots=True)
class Who:
    """The caller: `everyone` for an admin managing the admins' endpoints (`/admin`)."""

    name: str
    everyone: bool = False

    @property
    def scope(self) -> str:
        return "all" if self.everyone else "own"

    def sees(self) -> ColumnElement[bool]:
        if self.everyone:
            return WebhookEndpoint.scope == "all"
        return and_(WebhookEndpoint.scope == "own", WebhookEndpoint.owner == self.name)


def owned_endpoint(
    session: Session, who: Who, webhook_id: str, *, lock: bool = False
) -> WebhookEndpoint:
    query = select(WebhookEndpoint).where(WebhookEndpoint.id == webhook_id, who.sees())
    if lock:
        query = query.with_for_update()
    endpoint = session.scalar(query)
    if endpoint is None:
        raise NotFound("no such webhook endpoint")
    return endpoint

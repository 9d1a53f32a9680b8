"""Who may send mail outside: a user or agent an admin enabled, on a gateway with a
smarthost. Checked in the send's transaction, before anything is written."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import NotFound, OutboundNotAllowed
from core.store.engine import Store
from core.store.models import Agent, User

__all__ = ["check_outbound_allowed", "set_agent_outbound", "set_user_outbound"]

_Row = TypeVar("_Row", User, Agent)


def check_outbound_allowed(
    session: Session, name: str, *, is_agent: bool, configured: bool
) -> None:
    if not configured:
        raise OutboundNotAllowed(
            "this gateway sends no mail outside: no smarthost is configured"
            " (AGENTMAIL_SMARTHOST, docs/external-mail.md)"
        )
    model = Agent if is_agent else User
    enabled = session.scalar(select(model.outbound_mail).where(model.name == name))
    if not enabled:
        kind = "agent" if is_agent else "user"
        raise OutboundNotAllowed(
            f"{kind} '{name}' may not send mail outside the gateway (mailto: recipients):"
            f" an admin enables it (PATCH /api/v1/admin/{kind}s/{name}, outbound_mail)"
        )


async def set_user_outbound(store: Store, name: str, enabled: bool) -> User:
    """An admin's switch for a user (the name as stored, lower case)."""
    return await _switch(store, User, name, enabled)


async def set_agent_outbound(store: Store, name: str, enabled: bool | None) -> Agent:
    """The same for an agent; `None` changes nothing (the agent as it is)."""
    return await _switch(store, Agent, name, enabled)


async def _switch(store: Store, model: type[_Row], name: str, enabled: bool | None) -> _Row:
    def run(session: Session) -> _Row:
        row = session.scalar(select(model).where(model.name == name))
        if row is None:
            raise NotFound(f"no {model.__tablename__[:-1]} named '{name}'")
        if enabled is not None:
            row.outbound_mail = enabled
        return row

    return await store.write(run)

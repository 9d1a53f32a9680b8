"""Routing: which conversation a mail goes to (ARCHITECTURE.md, "Three-part addressing").

`.alias` → that conversation (it must exist, and the sender must take part in
it); `.new` → a new one; else the parent's (a reply) or the one named by id (a
participant's too); else a new one named `session_alias`;
else the default conversation of the two endpoints. A conversation created
without a name takes one from its subject. Agents may open at most
`new_conversations_per_hour` conversations an hour (counted in the database, so
it holds across restarts and replicas): `.new` cannot be used to dodge budgets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.address import normalize_alias
from core.errors import NotFound, RateLimited
from core.identity.endpoints import Endpoint
from core.identity.external import Party
from core.mail.conversation_rows import (
    ConversationRow,
    by_alias,
    by_default_key,
    insert_conversation,
    joined_locked,
)
from core.mail.conversations import default_key, lock_creation, unique_alias
from core.mail.naming import alias_from_subject
from core.settings import Limits
from core.store.models import Conversation, Mail, utcnow

RATE_WINDOW = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Target:
    """What the routing needs from a send: where it goes and how a new conversation starts."""

    address: Party  # an outside recipient names no conversation (alias None, not new)
    subject: str
    session_alias: str | None
    budget: int | str | None


def initial_budget(budget: int | str | None, sender: Endpoint, target: Endpoint) -> int | None:
    """Omitted = the receiving agent's default (else the sending agent's); None = unlimited."""
    if budget == "unlimited":
        return None
    if isinstance(budget, int):
        return budget
    for endpoint in (target, sender):
        if endpoint.agent is not None:
            return endpoint.agent.default_budget
    return None


def check_new_conversation_rate(session: Session, sender: Endpoint, limits: Limits) -> None:
    """Agents only; humans open as many conversations as they like."""
    if sender.agent is None:
        return
    since = utcnow() - RATE_WINDOW
    recent = (
        select(Conversation.created_at)
        .where(Conversation.created_by == sender.name, Conversation.created_at > since)
        .order_by(Conversation.created_at)
    )
    count = session.scalar(select(func.count()).select_from(recent.subquery())) or 0
    if count < limits.new_conversations_per_hour:
        return
    oldest = session.scalar(recent.limit(1))
    retry_after = 1
    if oldest is not None:
        retry_after = max(1, int((oldest + RATE_WINDOW - utcnow()).total_seconds()) + 1)
    raise RateLimited(
        f"agent '{sender.name}' opened {count} conversations in the last hour "
        f"(limit {limits.new_conversations_per_hour}); try again in {retry_after} s",
        retry_after=retry_after,
    )


def choose_conversation(
    session: Session,
    target: Target,
    sender: Endpoint,
    recipient: Endpoint,
    parent: Mail | None,
    conversation_id: str | None,
    limits: Limits,
) -> tuple[ConversationRow, bool]:
    """The conversation this mail belongs to, and whether it was created for it."""
    address = target.address
    # Only a participant addresses an existing conversation (by alias, id or reply);
    # for anyone else each way in fails exactly as for one that does not exist.
    if address.alias is not None:
        return by_alias(session, address.alias, sender.name), False
    if not address.is_new:
        if conversation_id is not None:
            conv = joined_locked(session, conversation_id, sender.name)
            if conv is None:
                raise NotFound(f"no conversation {conversation_id}")
            return conv, False
        if parent is not None:
            conv = joined_locked(session, parent.session_id, sender.name)
            if conv is None:
                raise NotFound(f"no mail {parent.id}")
            return conv, False
    key = None
    if not address.is_new and target.session_alias is None:
        key = default_key(sender.pair, recipient.pair)
        # Most mails find it: its row lock is all they need, not the creation lock,
        # which would serialise every such send on PostgreSQL.
        existing = by_default_key(session, key)
        if existing is not None:
            return existing, False
    if lock_creation(session) and key is not None:
        existing = by_default_key(session, key)  # made by a send that held the lock first
        if existing is not None:
            return existing, False
    check_new_conversation_rate(session, sender, limits)
    budget = initial_budget(target.budget, sender, recipient)
    conv = open_conversation(
        session, target.subject, target.session_alias, budget, sender.name, default_key=key
    )
    return conv, True


def open_conversation(
    session: Session,
    subject: str,
    session_alias: str | None,
    budget_limit: int | None,
    created_by: str,
    created_at: datetime | None = None,
    *,
    default_key: str | None = None,
    status: str = "active",
) -> ConversationRow:
    """A new conversation named `session_alias`, else after its subject (made unique).

    The caller holds `lock_creation`; an import passes the time of its first mail and
    `completed` (an archive's thread is history, not open work).
    """
    alias, source = None, None
    if session_alias is not None:
        alias, source = normalize_alias(session_alias), "sender"
    elif (from_subject := alias_from_subject(subject)) is not None:
        alias, source = from_subject, "subject"
    return insert_conversation(
        session,
        alias=unique_alias(session, alias) if alias else None,
        alias_source=source,
        subject=subject,
        budget_limit=budget_limit,
        created_by=created_by,
        created_at=created_at,
        default_key=default_key,
        status=status,
    )

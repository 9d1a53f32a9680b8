"""Conversations ("sessions" in the API): finding, creating, naming and closing them.

Addressing (ARCHITECTURE.md, "Three-part addressing") decides the conversation of
a mail: `.new` opens one; `.alias` must name an existing one (never created
silently); no session part means the default conversation of the two endpoints
(sender and recipient, each a name and a workspace), created on first use.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Literal

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from core.address import normalize_alias
from core.errors import AliasTaken, Forbidden, InvalidRequest, NotFound, UnknownAlias
from core.events import emit
from core.mailbox import session_mails
from core.models import Conversation, Mail, Participant, isoformat, utcnow
from core.principal import Principal
from core.store import Store
from core.views import SessionDetail, SessionView

_CREATION_LOCK_KEY = 0x61676D63  # "agmc": serialises alias and default-conversation creation
MAX_ALIAS = 64
Endpoint = tuple[str, str]  # (name, workspace name; "" for humans)


def default_key(a: Endpoint, b: Endpoint) -> str:
    """The same key whichever of the two endpoints sends."""
    pair = json.dumps(sorted([list(a), list(b)]), ensure_ascii=False)
    return hashlib.sha256(pair.encode("utf-8")).hexdigest()


async def lock_creation(session: AsyncSession) -> None:
    """On PostgreSQL, serialise creations so two racing mails never pick the same alias."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _CREATION_LOCK_KEY})


async def unique_alias(session: AsyncSession, wanted: str, *, exclude_id: str | None = None) -> str:
    """`wanted`, or `wanted-2`, `wanted-3` … whichever is free."""
    base = normalize_alias(wanted)
    taken_query = select(Conversation.alias, Conversation.id).where(
        (Conversation.alias == base) | Conversation.alias.like(base[: MAX_ALIAS - 4] + "-%")
    )
    taken = {
        alias for alias, conv_id in (await session.execute(taken_query)) if conv_id != exclude_id
    }
    if base not in taken:
        return base
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: MAX_ALIAS - len(suffix)].rstrip("-_") + suffix
        if candidate not in taken:
            return candidate
        n += 1


async def by_alias(session: AsyncSession, alias: str) -> Conversation:
    conv = await session.scalar(
        select(Conversation).where(Conversation.alias == alias).with_for_update()
    )
    if conv is None:
        raise UnknownAlias(f"undeliverable: no conversation '{alias}'")
    return conv


async def by_id_locked(session: AsyncSession, conv_id: str) -> Conversation | None:
    return await session.scalar(
        select(Conversation).where(Conversation.id == conv_id).with_for_update()
    )


async def add_participants(session: AsyncSession, conv_id: str, names: Iterable[str]) -> None:
    rows = [{"session_id": conv_id, "name": name} for name in dict.fromkeys(names)]
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    await session.execute(insert(Participant).values(rows).on_conflict_do_nothing())


async def participants(session: AsyncSession, conv_id: str) -> list[str]:
    names = await session.scalars(
        select(Participant.name).where(Participant.session_id == conv_id).order_by(Participant.name)
    )
    return list(names.all())


def budget_remaining(conv: Conversation) -> int | Literal["unlimited"]:
    if conv.budget_limit is None:
        return "unlimited"
    return max(0, conv.budget_limit - conv.budget_used)


async def session_view(session: AsyncSession, conv: Conversation) -> SessionView:
    count = await session.scalar(select(func.count()).where(Mail.session_id == conv.id))
    return SessionView(
        session_id=conv.id,
        session_alias=conv.alias,
        subject=conv.subject,
        status=conv.status,
        budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
        budget_used=conv.budget_used,
        budget_remaining=budget_remaining(conv),
        participants=await participants(session, conv.id),
        created_by=conv.created_by,
        mail_count=int(count or 0),
        created_at=conv.created_at,
        updated_at=conv.updated_at,
    )


def emit_session_update(session: AsyncSession, conv: Conversation, audience: list[str]) -> None:
    emit(
        session,
        audience,
        "session_update",
        {
            "session_id": conv.id,
            "session_alias": conv.alias,
            "subject": conv.subject,
            "status": conv.status,
            "budget_limit": "unlimited" if conv.budget_limit is None else conv.budget_limit,
            "budget_used": conv.budget_used,
            "updated_at": isoformat(conv.updated_at),
        },
    )


async def visible_conversation(
    session: AsyncSession, principal: Principal, conv_id: str
) -> Conversation:
    """The conversation, if the caller takes part in it; 404 otherwise (no existence leak)."""
    member = await session.scalar(
        select(Participant.name).where(
            Participant.session_id == conv_id, Participant.name == principal.name
        )
    )
    conv = await by_id_locked(session, conv_id) if member else None
    if conv is None:
        raise NotFound(f"no conversation {conv_id}")
    return conv


async def list_sessions(
    store: Store, principal: Principal, status: str | None, limit: int, offset: int
) -> tuple[list[SessionView], int]:
    mine = select(Participant.session_id).where(Participant.name == principal.name)
    query = select(Conversation).where(Conversation.id.in_(mine))
    if status is not None:
        query = query.where(Conversation.status == status)
    async with store.read() as session:
        total = await session.scalar(select(func.count()).select_from(query.subquery()))
        convs = await session.scalars(
            query.order_by(Conversation.updated_at.desc()).limit(limit).offset(offset)
        )
        views = [await session_view(session, conv) for conv in convs.all()]
    return views, int(total or 0)


async def update_session(
    store: Store,
    principal: Principal,
    conv_id: str,
    *,
    alias: str | None = None,
    clear_alias: bool = False,
    subject: str | None = None,
    status: str | None = None,
) -> SessionView:
    """A human renames, retitles, closes or reopens a conversation. Human renames win."""
    if not principal.is_human:
        raise Forbidden("only a human renames or closes a conversation; agents use /sync")
    if status not in (None, "active", "completed"):
        raise InvalidRequest("status must be 'active' or 'completed' ('waiting' follows requests)")
    async with store.write() as session:
        conv = await visible_conversation(session, principal, conv_id)
        if alias is not None or clear_alias:
            await lock_creation(session)
            new_alias = normalize_alias(alias) if alias is not None else None
            if new_alias is not None and new_alias != conv.alias:
                holder = await session.scalar(
                    select(Conversation.id).where(Conversation.alias == new_alias)
                )
                if holder is not None:
                    raise AliasTaken(f"the alias '{new_alias}' is taken by another conversation")
            conv.alias = new_alias
            conv.alias_source = "human"
        if subject is not None:
            conv.subject = _checked_subject(subject)
        if status == "completed":
            conv.status = "completed"
        elif status == "active" and conv.status == "completed":
            conv.status = await status_from_requests(session, conv.id)
        conv.updated_at = utcnow()
        emit_session_update(session, conv, await participants(session, conv.id))
        return await session_view(session, conv)


async def sync_session(
    store: Store, principal: Principal, conv_id: str, *, alias: str | None, title: str | None
) -> SessionView:
    """A platform writes back its own naming; ignored where a human has renamed."""
    async with store.write() as session:
        conv = await visible_conversation(session, principal, conv_id)
        changed = False
        if conv.alias_source != "human":
            if alias is not None:
                await lock_creation(session)
                wanted = normalize_alias(alias)
                if wanted != conv.alias:
                    conv.alias = await unique_alias(session, wanted, exclude_id=conv.id)
                    conv.alias_source = "platform"
                    changed = True
            if title is not None and title != conv.subject:
                conv.subject = _checked_subject(title)
                changed = True
        if changed:
            conv.updated_at = utcnow()
            emit_session_update(session, conv, await participants(session, conv.id))
        return await session_view(session, conv)


async def status_from_requests(session: AsyncSession, conv_id: str) -> str:
    """`waiting` while a permission request in the conversation is open, else `active`."""
    open_request = await session.scalar(
        select(Mail.seq).where(Mail.session_id == conv_id, Mail.permission_state == "open").limit(1)
    )
    return "waiting" if open_request is not None else "active"


def _checked_subject(subject: str) -> str:
    subject = subject.strip()
    if len(subject) > 998 or "\n" in subject or "\r" in subject:
        raise InvalidRequest("a subject is one line of at most 998 characters")
    return subject


async def session_detail(
    store: Store, domain: str, principal: Principal, conv_id: str
) -> SessionDetail:
    async with store.read() as session:
        conv = await visible_conversation(session, principal, conv_id)
        return SessionDetail(
            session=await session_view(session, conv),
            mails=await session_mails(session, principal, conv, domain),
        )

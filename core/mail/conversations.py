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

from pydantic import BaseModel, Field
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.address import normalize_alias
from core.errors import Forbidden, NotFound
from core.mail.conversation_rows import ConversationState
from core.mail.conversation_views import conversation_views
from core.mail.reading import conversation_mails
from core.mail.subjects import MAX_SUBJECT, checked_subject
from core.principal import Principal
from core.store.engine import Store
from core.store.events import emit
from core.store.models import (
    Conversation,
    FormerAlias,
    Mail,
    Participant,
    User,
    isoformat,
    table_of,
    utcnow,
)
from core.store.port import backend_of, insert_or_skip
from core.views import BudgetInput, SessionDetail, SessionView

_CREATION_LOCK_KEY = 0x61676D63  # "agmc": serialises alias and default-conversation creation
MAX_ALIAS = 64
MAX_REASON = 500  # why a conversation was changed (a raised budget), shown to its participants
Endpoint = tuple[str, str]  # (name, workspace name; "" for humans)


_PARTICIPANTS = table_of(Participant)


def default_key(a: Endpoint, b: Endpoint) -> str:
    """The same key whichever of the two endpoints sends."""
    pair = json.dumps(sorted([list(a), list(b)]), ensure_ascii=False)
    return hashlib.sha256(pair.encode("utf-8")).hexdigest()


def lock_creation(session: Session) -> bool:
    """On PostgreSQL, serialise creations so two racing mails never pick the same alias
    (True: it locked; what was read before may have been created since)."""
    backend = backend_of(session)
    if backend.serial_writes:
        return False  # one writer at a time
    backend.serialize(session, _CREATION_LOCK_KEY)
    return True


def unique_alias(session: Session, wanted: str, *, exclude_id: str | None = None) -> str:
    """`wanted`, or `wanted-2`, `wanted-3` … whichever is free.

    An alias is taken while a conversation holds it and after, as a former alias
    (`rename_to`): never given to another conversation. `exclude_id`'s own aliases,
    current and former, are free to it (a conversation renamed back)."""
    base = normalize_alias(wanted)
    like = base[: MAX_ALIAS - 4] + "-%"
    held = select(Conversation.alias, Conversation.id).where(
        (Conversation.alias == base) | Conversation.alias.like(like)
    )
    former = select(FormerAlias.alias, FormerAlias.session_id).where(
        (FormerAlias.alias == base) | FormerAlias.alias.like(like)
    )
    taken = {
        alias
        for query in (held, former)
        for alias, conv_id in session.execute(query)
        if conv_id != exclude_id
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


def rename_to(session: Session, conv: Conversation, wanted: str | None) -> None:
    """Give `conv` the alias `wanted` (made unique; None clears it), keeping the one it
    had as a former alias: mail clients that synced a mail before the rename still
    reply to it. The caller holds `lock_creation`."""
    old = conv.alias
    new = None if wanted is None else unique_alias(session, wanted, exclude_id=conv.id)
    if new == old:
        return
    if new is not None:  # its own former alias, current again
        session.execute(
            delete(FormerAlias).where(FormerAlias.alias == new, FormerAlias.session_id == conv.id)
        )
    if old is not None:
        session.add(FormerAlias(alias=old, session_id=conv.id, retired_at=utcnow()))
    conv.alias = new


def by_id_locked(session: Session, conv_id: str) -> Conversation | None:
    return session.scalar(select(Conversation).where(Conversation.id == conv_id).with_for_update())


def add_participants(session: Session, conv_id: str, names: Iterable[str]) -> None:
    rows = [{"session_id": conv_id, "name": name} for name in dict.fromkeys(names)]
    if not rows:
        return
    insert_or_skip(session, _PARTICIPANTS).run(session.connection(), rows)


def participants(session: Session, conv_id: str) -> list[str]:
    names = session.scalars(
        select(Participant.name).where(Participant.session_id == conv_id).order_by(Participant.name)
    )
    return list(names.all())


def conversation_view(session: Session, conv: Conversation, viewer: str) -> SessionView:
    """The conversation as `viewer` sees it: `mail_count` counts the mails they may see."""
    return conversation_views(session, [conv], viewer)[0]


def emit_session_update(
    session: Session,
    conv: ConversationState,
    audience: list[str],
    extra: dict[str, object] | None = None,
) -> None:
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
            **(extra or {}),
        },
    )


def visible_conversation(
    session: Session, principal: Principal, conv_id: str, *, lock: bool = False
) -> Conversation:
    """The conversation, if the caller takes part in it; 404 otherwise (no existence leak).

    `lock` takes a row lock (PostgreSQL) for a transaction that will change it.
    """
    member = session.scalar(
        select(Participant.name).where(
            Participant.session_id == conv_id, Participant.name == principal.name
        )
    )
    conv = None
    if member:
        query = select(Conversation).where(Conversation.id == conv_id)
        conv = session.scalar(query.with_for_update() if lock else query)
    if conv is None:
        raise NotFound(f"no conversation {conv_id}")
    return conv


async def list_conversations(
    store: Store,
    principal: Principal,
    status: str | None,
    limit: int,
    offset: int,
    participant: str | None = None,
) -> tuple[list[SessionView], int]:
    """The caller's conversations, newest first; `participant`: those someone else
    (an agent, for its page) takes part in too."""
    mine = select(Participant.session_id).where(Participant.name == principal.name)
    query = select(Conversation).where(Conversation.id.in_(mine))
    if status is not None:
        query = query.where(Conversation.status == status)
    if participant is not None:
        theirs = select(Participant.session_id).where(Participant.name == participant.lower())
        query = query.where(Conversation.id.in_(theirs))

    def run(session: Session) -> tuple[list[SessionView], int]:
        total = session.scalar(select(func.count()).select_from(query.subquery()))
        convs = session.scalars(
            query.order_by(Conversation.updated_at.desc(), Conversation.id)
            .limit(limit)
            .offset(offset)
        ).all()
        return conversation_views(session, convs, principal.name), int(total or 0)

    return await store.read(run)


class SessionChange(BaseModel):
    """What a human may change on a conversation; fields left out stay as they are."""

    session_alias: str | None = Field(
        None, max_length=MAX_ALIAS, description="New alias; null with `clear_alias` removes it."
    )
    clear_alias: bool = False
    subject: str | None = Field(None, max_length=MAX_SUBJECT)
    status: Literal["active", "completed"] | None = None
    budget_limit: BudgetInput | None = Field(
        None, description="New round-trip budget: a number of rounds or 'unlimited'."
    )
    reset_budget_used: bool = Field(False, description="Start counting rounds from 0 again.")
    reason: str | None = Field(
        None,
        max_length=MAX_REASON,
        description="Why (a raised budget, say); carried in the `session_update` event.",
    )


async def update_conversation(
    store: Store, principal: Principal, conv_id: str, change: SessionChange
) -> SessionView:
    """A human renames, retitles, closes, reopens or re-budgets a conversation.

    Human renames win: a later platform sync never overwrites them.
    """
    if not principal.is_human:
        raise Forbidden("only a human changes a conversation; agents use /sync")

    def run(session: Session) -> SessionView:
        conv = visible_conversation(session, principal, conv_id, lock=True)
        if change.session_alias is not None or change.clear_alias:
            lock_creation(session)
            if change.session_alias is None:
                rename_to(session, conv, None)
            elif (wanted := normalize_alias(change.session_alias)) != conv.alias:
                # A taken alias gets `-2`, `-3` … as at creation, never a refusal: that
                # would tell the caller an alias exists in a conversation they cannot see.
                rename_to(session, conv, wanted)
            conv.alias_source = "human"
        if change.subject is not None:
            conv.subject = checked_subject(change.subject)
        if change.status == "completed":
            conv.status = "completed"
        elif change.status == "active" and conv.status == "completed":
            conv.status = status_from_requests(session, conv.id)
        if change.budget_limit is not None:
            conv.budget_limit = None if change.budget_limit == "unlimited" else change.budget_limit
        if change.reset_budget_used:
            conv.budget_used = 0
        conv.updated_at = utcnow()
        # Who changed it and why reach every participant: an agent learns that its
        # budget was raised, and on what terms, without a mail.
        said: dict[str, object] = {"changed_by": principal.name}
        if change.reason and change.reason.strip():
            said["reason"] = change.reason.strip()
        emit_session_update(session, conv, participants(session, conv.id), said)
        return conversation_view(session, conv, principal.name)

    return await store.write(run)


def status_from_requests(session: Session, conv_id: str) -> str:
    """`waiting` while a human owes the conversation an answer, else `active`.

    A human owes one while a permission request in it is open, or while its newest
    `question` (only agents send them) has no human mail after it: any mail from a
    human in the conversation answers it, as a reply would.
    """
    now = utcnow()
    open_request = session.scalar(
        select(Mail.seq)
        .where(
            Mail.session_id == conv_id,
            Mail.permission_state == "open",
            (Mail.expires_at.is_(None)) | (Mail.expires_at > now),
        )
        .limit(1)
    )
    if open_request is not None:
        return "waiting"
    question = (
        select(func.max(Mail.seq))
        .where(Mail.session_id == conv_id, Mail.mail_type == "question")
        .scalar_subquery()
    )
    answered = (
        select(Mail.seq)
        .where(
            Mail.session_id == conv_id, Mail.seq > question, Mail.from_name.in_(select(User.name))
        )
        .exists()
    )
    unanswered = session.scalar(select(question.is_not(None) & ~answered))
    return "waiting" if unanswered else "active"


async def conversation_detail(
    store: Store, domain: str, principal: Principal, conv_id: str
) -> SessionDetail:
    def run(session: Session) -> SessionDetail:
        conv = visible_conversation(session, principal, conv_id)
        return SessionDetail(
            session=conversation_view(session, conv, principal.name),
            mails=conversation_mails(session, principal, conv, domain),
        )

    return await store.read(run)

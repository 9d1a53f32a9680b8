"""The conversation as the write path holds it: one Core row, read locked, written back once.

Every mail reads its conversation (routing, the round budget) and changes it
(rounds used, status, `updated_at`). Through the ORM that was an entity load, an
identity map and a unit-of-work flush at COMMIT for each mail; here it is a
plain row read with its lock (`FOR UPDATE` on PostgreSQL: the conversation is the
first lock of the global order, core/store/engine.py) and one `UPDATE … RETURNING`
that gives back what the response and the events report. The participant check
that guards every way into an existing conversation, and the hops of its newest
mail (the agent loop limit), are joined into the read.

`ConversationState` is what readers of either form need (events, budget views),
so the ORM entity that other writers change (a rename, a decision) fits too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from core.errors import UnknownAlias
from core.store.models import (
    Conversation,
    FormerAlias,
    Mail,
    Participant,
    new_id,
    table_of,
    utcnow,
)
from core.store.prepared import Prepared


class ConversationState(Protocol):
    """What a conversation says to its readers: the ORM entity and the row alike."""

    @property
    def id(self) -> str: ...
    @property
    def alias(self) -> str | None: ...
    @property
    def subject(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def budget_limit(self) -> int | None: ...
    @property
    def budget_used(self) -> int: ...
    @property
    def updated_at(self) -> datetime: ...


@dataclass(slots=True)
class ConversationRow:
    id: str
    alias: str | None
    subject: str
    status: str
    budget_limit: int | None
    budget_used: int
    updated_at: datetime
    # The hop count of its newest mail, read with it (core/mail/send.py counts agent
    # hops from it); 0 for a row just written.
    latest_hops: int = 0


_SESSIONS = table_of(Conversation)
_PARTICIPANTS = table_of(Participant)
_COLUMNS = (
    _SESSIONS.c.id,
    _SESSIONS.c.alias,
    _SESSIONS.c.subject,
    _SESSIONS.c.status,
    _SESSIONS.c.budget_limit,
    _SESSIONS.c.budget_used,
    _SESSIONS.c.updated_at,
)
_MEMBER = _PARTICIPANTS.c.session_id == _SESSIONS.c.id
_MAILS = table_of(Mail)
_LATEST_HOPS = (
    select(_MAILS.c.hops)
    .where(_MAILS.c.session_id == _SESSIONS.c.id)
    .order_by(_MAILS.c.seq.desc())
    .limit(1)
    .correlate(_SESSIONS)
    .scalar_subquery()
)
_READ = (*_COLUMNS, _LATEST_HOPS)
# Built once, bound per call (the hot path of every send).
_AS_PARTICIPANT = select(*_READ).join(
    _PARTICIPANTS, _MEMBER & (_PARTICIPANTS.c.name == bindparam("member"))
)
_BY_ALIAS_UNLOCKED = _AS_PARTICIPANT.where(_SESSIONS.c.alias == bindparam("alias"))
_BY_ALIAS = _BY_ALIAS_UNLOCKED.with_for_update(of=_SESSIONS)
_FORMER = table_of(FormerAlias)
# An alias the conversation held before a rename (core/mail/conversations.py, `rename_to`).
_BY_FORMER_ALIAS_UNLOCKED = _AS_PARTICIPANT.join(
    _FORMER, (_FORMER.c.session_id == _SESSIONS.c.id) & (_FORMER.c.alias == bindparam("alias"))
)
_BY_FORMER_ALIAS = _BY_FORMER_ALIAS_UNLOCKED.with_for_update(of=_SESSIONS)
_BY_ID_UNLOCKED = _AS_PARTICIPANT.where(_SESSIONS.c.id == bindparam("id"))
_BY_ID = _BY_ID_UNLOCKED.with_for_update(of=_SESSIONS)
_BY_DEFAULT_KEY_QUERY = select(*_READ).where(_SESSIONS.c.default_key == bindparam("key"))
_BY_DEFAULT_KEY_UNLOCKED = Prepared(_BY_DEFAULT_KEY_QUERY)
_BY_DEFAULT_KEY = Prepared(_BY_DEFAULT_KEY_QUERY.with_for_update())
_INSERT = insert(_SESSIONS)
_SAVE = Prepared(
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("b_id"))
    .values(
        budget_used=_SESSIONS.c.budget_used + bindparam("b_rounds"),
        status=bindparam("b_status"),
        updated_at=bindparam("b_now"),
    )
    .returning(*_COLUMNS)
)


def _row(found: Sequence[Any] | None) -> ConversationRow | None:
    if found is None:
        return None
    id_, alias, subject, status, budget_limit, budget_used, updated_at, *hops = found
    row = ConversationRow(id_, alias, subject, status, budget_limit, budget_used, updated_at)
    row.latest_hops = int(hops[0] or 0) if hops else 0
    return row


def by_alias(session: Session, alias: str, sender: str, *, lock: bool = True) -> ConversationRow:
    """The conversation `sender` takes part in under this alias, or under one it held
    before a rename (a mail client replies to the address it synced).

    For anyone else it does not exist: the same error, word for word, as an alias
    nobody has, so an alias (guessable: it comes from a subject) reveals nothing
    and lets no one in. A participant brings others in by writing to them.
    """
    params = {"alias": alias, "member": sender}
    connection = session.connection()
    current, former = (
        (_BY_ALIAS, _BY_FORMER_ALIAS) if lock else (_BY_ALIAS_UNLOCKED, _BY_FORMER_ALIAS_UNLOCKED)
    )
    found = _row(connection.execute(current, params).first())
    if found is None:
        found = _row(connection.execute(former, params).first())
    if found is None:
        raise UnknownAlias(f"undeliverable: no conversation '{alias}'")
    return found


def joined_locked(
    session: Session, conv_id: str, member: str, *, lock: bool = True
) -> ConversationRow | None:
    """The conversation, locked (unless `lock` is False: a preview), if `member` takes
    part in it; None otherwise."""
    params = {"id": conv_id, "member": member}
    query = _BY_ID if lock else _BY_ID_UNLOCKED
    return _row(session.connection().execute(query, params).first())


def by_default_key(session: Session, key: str, *, lock: bool = True) -> ConversationRow | None:
    """The default conversation of a pair of endpoints (core/mail/conversations.py)."""
    query = _BY_DEFAULT_KEY if lock else _BY_DEFAULT_KEY_UNLOCKED
    return _row(query.first(session.connection(), {"key": key}))


def insert_conversation(
    session: Session,
    *,
    alias: str | None,
    alias_source: str | None,
    subject: str,
    budget_limit: int | None,
    created_by: str,
    created_at: datetime | None = None,
    default_key: str | None = None,
    status: str = "active",
) -> ConversationRow:
    """A new conversation row (the caller holds the creation lock and chose the alias)."""
    when = created_at or utcnow()
    row = ConversationRow(new_id(), alias, subject.strip(), status, budget_limit, 0, when)
    values = {
        "id": row.id,
        "alias": alias,
        "alias_source": alias_source,
        "subject": row.subject,
        "status": row.status,
        "budget_limit": budget_limit,
        "budget_used": 0,
        "default_key": default_key,
        "created_by": created_by,
        "created_at": when,
        "updated_at": when,
    }
    session.connection().execute(_INSERT, values)
    return row


def save_conversation(session: Session, row: ConversationRow, rounds: int) -> ConversationRow:
    """Write back a mail's change: `rounds` more rounds used, the status, `updated_at`;
    the row as stored (the increment is made by the database, under the row's lock)."""
    params = {"b_id": row.id, "b_rounds": rounds, "b_status": row.status, "b_now": row.updated_at}
    saved = _row(_SAVE.first(session.connection(), params))
    assert saved is not None  # locked since it was read
    return saved

"""Events: rows written in the transaction of the change they report.

The SSE stream (and later IMAP IDLE) reads them per recipient after a cursor, so
`Last-Event-ID` resume is a range query. Payloads are JSON objects; the event
types and their fields are the contract in ARCHITECTURE.md ("Interfaces").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session

from core.store.bus import StoredEvent
from core.store.engine import Store, pending_events
from core.store.models import Event, Meta, table_of, utcnow

EventType = Literal[
    "new_mail", "permission_decision", "session_update", "agent_online", "webhook_disabled"
]
_PRUNED_THROUGH = "events_pruned_through"


__all__ = ["EventType", "StoredEvent", "emit", "events_after", "latest_event_id"]


def emit(
    session: Session, recipients: Iterable[str], type_: EventType, payload: dict[str, Any]
) -> None:
    """Queue one event per recipient; `Store.write` inserts them just before commit."""
    queued = pending_events(session)
    for recipient in dict.fromkeys(recipients):  # unique, in order
        queued.append({"recipient": recipient, "type": type_, "payload": payload})


_EVENTS = table_of(Event)
_NEWEST = select(func.max(_EVENTS.c.id))
_AFTER = (
    select(_EVENTS.c.id, _EVENTS.c.type, _EVENTS.c.payload, _EVENTS.c.created_at)
    .where(_EVENTS.c.recipient == bindparam("recipient"), _EVENTS.c.id > bindparam("after"))
    .order_by(_EVENTS.c.id)
    .limit(bindparam("limit"))
)


@dataclass(frozen=True, slots=True)
class Batch:
    events: list[StoredEvent]
    # Every event of the recipient up to this id is in `events` or was before `after`
    # (when `events` is not cut by the limit): the stream's queue of pushed events
    # completes it from there (core/store/bus.py).
    through: int


async def events_after(store: Store, recipient: str, after: int, limit: int = 500) -> Batch:
    def run(session: Session) -> Batch:
        connection = session.connection()
        # The newest id first: ids become visible in commit order, so every event up
        # to it is visible to the next statement too (READ COMMITTED on PostgreSQL
        # takes a snapshot per statement).
        newest = int(connection.execute(_NEWEST).scalar() or 0)
        params = {"recipient": recipient, "after": after, "limit": limit}
        events = [StoredEvent(*row) for row in connection.execute(_AFTER, params)]
        return Batch(events, max(newest, events[-1].id if events else after))

    return await store.read(run)


async def latest_event_id(store: Store) -> int:
    return await store.read(lambda s: int(s.scalar(select(func.max(Event.id))) or 0))


async def resume_needs_resync(store: Store, last_event_id: int) -> bool:
    """True when the client must reload: events after `last_event_id` may have been
    pruned, or that id was never given out (from another database, or made up)."""

    def run(session: Session) -> bool:
        pruned = session.scalar(select(Meta.value).where(Meta.key == _PRUNED_THROUGH))
        through = int(pruned) if pruned is not None else 0
        latest = int(session.scalar(select(func.max(Event.id))) or 0)
        return last_event_id < through or last_event_id > max(latest, through)

    return await store.read(run)


async def prune_events(store: Store, retention: timedelta) -> int:
    """Delete events older than the retention, but the newest event; remember how far,
    for `resync`.

    The newest stays however old: SQLite numbers a new row one past the highest id
    in the table, so deleting every event would give the next events ids at or below
    the mark, which a stream whose cursor is past them never reads (and a resume from
    them is told to resync). PostgreSQL's sequence never goes back; both keep one row.
    """
    cutoff = utcnow() - retention

    def run(session: Session) -> int:
        newest_old = session.scalar(select(func.max(Event.id)).where(Event.created_at < cutoff))
        if newest_old is not None and newest_old == session.scalar(_NEWEST):
            newest_old = session.scalar(select(func.max(Event.id)).where(Event.id < newest_old))
        if newest_old is None:
            return 0
        result = session.execute(delete(Event).where(Event.id <= newest_old))
        meta = session.get(Meta, _PRUNED_THROUGH)
        if meta is None:
            session.add(Meta(key=_PRUNED_THROUGH, value=str(newest_old)))
        else:
            meta.value = str(max(int(meta.value), newest_old))
        return int(result.rowcount)  # type: ignore[attr-defined]

    return await store.write(run)

"""Events: rows written in the transaction of the change they report.

The SSE stream (and later IMAP IDLE) reads them per recipient after a cursor, so
`Last-Event-ID` resume is a range query. Payloads are JSON objects; the event
types and their fields are the contract in ARCHITECTURE.md ("Interfaces").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.store.engine import Store, pending_events
from core.store.models import Event, Meta, utcnow

EventType = Literal["new_mail", "permission_decision", "session_update", "agent_online"]
_PRUNED_THROUGH = "events_pruned_through"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    type: str
    payload: dict[str, Any]
    created_at: datetime | None = None  # written in the change's transaction: ~its commit


def emit(
    session: Session, recipients: Iterable[str], type_: EventType, payload: dict[str, Any]
) -> None:
    """Queue one event per recipient; `Store.write` inserts them just before commit."""
    queued = pending_events(session)
    for recipient in dict.fromkeys(recipients):  # unique, in order
        queued.append({"recipient": recipient, "type": type_, "payload": payload})


async def events_after(
    store: Store, recipient: str, after: int, limit: int = 500
) -> list[StoredEvent]:
    query = (
        select(Event.id, Event.type, Event.payload, Event.created_at)
        .where(Event.recipient == recipient, Event.id > after)
        .order_by(Event.id)
        .limit(limit)
    )

    def run(session: Session) -> list[StoredEvent]:
        return [
            StoredEvent(row.id, row.type, row.payload, row.created_at)
            for row in session.execute(query)
        ]

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
    """Delete events older than the retention; remember how far, for `resync`."""
    cutoff = utcnow() - retention

    def run(session: Session) -> int:
        newest_old = session.scalar(select(func.max(Event.id)).where(Event.created_at < cutoff))
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

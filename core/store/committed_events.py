"""The events a write inserts last in its transaction, and what it tells after COMMIT.

Events are written in the transaction of the change they report, as its last
statements. On PostgreSQL those inserts run under a transaction-scoped advisory
lock, so event ids become visible in commit order: a reader that has seen id N
can never later find a committed event below N (the SSE resume relies on it).
The store (core/store/engine.py) runs every write function through `with_events`;
each backend inserts the rows its way (core/store/port.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from core.store.bus import Pushed, StoredEvent
from core.store.credentials import CREDENTIALS_CHANGED, credentials_written
from core.store.models import utcnow
from core.store.port import QueuedEvents, backend_of

T = TypeVar("T")

EVENTS_LOCK_KEY = 0x61676D6C  # "agml": the advisory lock that orders event ids
NOTIFY_CHANNEL = "agentmail_events"
_NOTIFY_LIMIT = 7000  # PostgreSQL refuses payloads of 8000 bytes and more
WAKE_ALL = "*"


@dataclass(frozen=True, slots=True)
class Committed:
    """What a write tells once committed: whom to wake, and the events it inserted
    (ids ascending) for the streams of this process (core/store/bus.py)."""

    recipients: set[str]
    events: list[Pushed] = field(default_factory=list)


def with_events(session: Session, fn: Callable[[Session], T], token: str) -> tuple[T, Committed]:
    result = fn(session)
    return result, flush_events(session, token)


def pending_events(session: Session) -> list[dict[str, Any]]:
    """Events queued in this transaction; `Store.write` inserts them last."""
    queued: list[dict[str, Any]] = session.info.setdefault("agentmail_events", [])
    return queued


def wake_after_commit(session: Session, names: Iterable[str]) -> None:
    """Wake these names' streams at commit without an event row: a change that
    IMAP shows (read state, a folder's contents) but SSE has no event type for."""
    wakes: set[str] = session.info.setdefault("agentmail_wakes", set())
    wakes.update(names)


def flush_events(session: Session, token: str = "") -> Committed:
    """Insert the queued events (last in the transaction, the backend's way): whom to
    wake, and the events with the ids the database gave them."""
    queued = pending_events(session)
    wakes: set[str] = session.info.pop("agentmail_wakes", set())
    session.flush()  # the ORM's pending changes first: events stay last, and are seen below
    if credentials_written(session):
        # Rides the wake-ups: dropped here after COMMIT, and by every replica's NOTIFY.
        wakes.add(CREDENTIALS_CHANGED)
    recipients = wakes | {row["recipient"] for row in queued}
    now = utcnow()
    ids = backend_of(session).insert_events(session, QueuedEvents(queued, recipients, now, token))
    if not queued and not wakes:
        return Committed(set())
    events = [
        (row["recipient"], StoredEvent(id_, row["type"], row["payload"], now))
        for row, id_ in zip(queued, sorted(ids), strict=True)
    ]
    queued.clear()
    return Committed(recipients, events)


def notify_payload(recipients: set[str], token: str = "") -> str:
    """The writing store's token, then the recipient names, newline-separated (names
    never contain one); `*` when too long."""
    payload = "\n".join([token, *sorted(recipients)] if token else sorted(recipients))
    return payload if len(payload.encode()) < _NOTIFY_LIMIT else WAKE_ALL

"""The events a write inserts last in its transaction, and what it tells after COMMIT.

Events are written in the transaction of the change they report, as its last
statements. On PostgreSQL those inserts run under a transaction-scoped advisory
lock, so event ids become visible in commit order: a reader that has seen id N
can never later find a committed event below N (the SSE resume relies on it).
The store (core/store/engine.py) runs every write function through `with_events`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import bindparam, insert, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import TextClause

from core.store.bus import Pushed, StoredEvent
from core.store.credentials import CREDENTIALS_CHANGED, credentials_written
from core.store.models import Event, UTCDateTime, table_of, utcnow
from core.store.pg_tail import Tail, take_pending
from core.store.prepared import Prepared

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


def with_events(
    session: Session, fn: Callable[[Session], T], dialect: str, token: str
) -> tuple[T, Committed]:
    result = fn(session)
    return result, flush_events(session, dialect, token)


def pending_events(session: Session) -> list[dict[str, Any]]:
    """Events queued in this transaction; `Store.write` inserts them last."""
    queued: list[dict[str, Any]] = session.info.setdefault("agentmail_events", [])
    return queued


def wake_after_commit(session: Session, names: Iterable[str]) -> None:
    """Wake these names' streams at commit without an event row: a change that
    IMAP shows (read state, a folder's contents) but SSE has no event type for."""
    wakes: set[str] = session.info.setdefault("agentmail_wakes", set())
    wakes.update(names)


def flush_events(session: Session, dialect: str, token: str = "") -> Committed:
    """Insert the queued events (last in the transaction): whom to wake, and the
    events with the ids the database gave them."""
    queued = pending_events(session)
    wakes: set[str] = session.info.pop("agentmail_wakes", set())
    session.flush()  # the ORM's pending changes first: events stay last, and are seen below
    if credentials_written(session):
        # Rides the wake-ups: dropped here after COMMIT, and by every replica's NOTIFY.
        wakes.add(CREDENTIALS_CHANGED)
    # A write's own CTEs left for the events statement (core/store/pg_tail.py).
    pending = take_pending(session.connection()) if dialect == "postgresql" else None
    if not queued and pending is not None:  # no events statement: they go alone
        session.connection().execute(pending[0].alone(), dict(pending[1]))
        pending = None
    if not queued and not wakes:
        return Committed(set())
    recipients = wakes | {row["recipient"] for row in queued}
    now = utcnow()
    ids: list[int] = []
    if dialect == "postgresql":
        if queued:
            params = {
                "lock_key": EVENTS_LOCK_KEY,
                "rows": json.dumps(queued),
                "now": now,
                "channel": NOTIFY_CHANNEL,
                "wake": notify_payload(recipients, token),
            }
            statement = _PG_EVENTS
            if pending is not None:
                statement = _pg_events_after(pending[0])
                params.update(pending[1])
            ids = [int(id_) for id_ in session.scalars(statement, params)]
        else:  # only wake-ups: no event rows, so no lock
            session.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": NOTIFY_CHANNEL, "payload": notify_payload(recipients, token)},
            )
    elif queued:
        rows = [{**row, "created_at": now} for row in queued]
        ids = [row[0] for row in _INSERT_EVENTS.run(session.connection(), rows)]
    events = [
        (row["recipient"], StoredEvent(id_, row["type"], row["payload"], now))
        for row, id_ in zip(queued, sorted(ids), strict=True)
    ]
    queued.clear()
    return Committed(recipients, events)


_EVENTS = table_of(Event)
# Built once; the ids come back in the order of the rows (SQLite: one multi-row INSERT).
_INSERT_EVENTS = Prepared(insert(_EVENTS).returning(_EVENTS.c.id, sort_by_parameter_order=True))


# On PostgreSQL the events lock is held from here to the end of COMMIT, so it is
# taken, the events inserted (in queue order, so their ids ascend in it) and the
# replicas notified in one round trip: every further round trip under the lock
# would serialize all writers on it for longer. NOTIFY is delivered at commit
# (core/store/replicas.py listens). The ids come back for this process's streams.
_PG_EVENTS_SQL = """
    locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(:lock_key){after}),
    inserted AS (
        INSERT INTO events (recipient, type, payload, created_at)
        SELECT queued.recipient, queued.type, queued.payload, :now
        FROM locked,
            ROWS FROM (json_to_recordset(CAST(:rows AS json))
                AS (recipient text, type text, payload json))
            WITH ORDINALITY AS queued (recipient, type, payload, n)
        ORDER BY queued.n
        RETURNING id
    ),
    notified AS MATERIALIZED (
        SELECT pg_notify(:channel, :wake) FROM (SELECT count(*) FROM inserted) AS done
    )
    SELECT inserted.id FROM inserted, notified ORDER BY inserted.id
    """
_EVENTS_NOW = bindparam("now", type_=UTCDateTime())
_PG_EVENTS = text("WITH" + _PG_EVENTS_SQL.format(after="")).bindparams(_EVENTS_NOW)


@cache
def _pg_events_after(tail: Tail) -> TextClause:
    """The events statement with a write's CTEs in front; the lock waits for their rows
    (a CTE nobody reads runs at the end of the statement, under the lock)."""
    after = f" FROM (SELECT count(*) FROM {tail.last}) AS written"
    sql = f"WITH {tail.ctes},{_PG_EVENTS_SQL.format(after=after)}"
    return text(sql).bindparams(_EVENTS_NOW, *tail.binds)


def notify_payload(recipients: set[str], token: str = "") -> str:
    """The writing store's token, then the recipient names, newline-separated (names
    never contain one); `*` when too long."""
    payload = "\n".join([token, *sorted(recipients)] if token else sorted(recipients))
    return payload if len(payload.encode()) < _NOTIFY_LIMIT else WAKE_ALL

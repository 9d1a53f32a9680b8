"""PostgreSQL's events insert: the advisory lock that orders event ids, the rows, the NOTIFY.

The events lock is held from here to the end of COMMIT, so it is taken, the
events inserted (in queue order, so their ids ascend in it) and the replicas
notified in one round trip: every further round trip under the lock would
serialize all writers on it for longer. NOTIFY is delivered at commit
(core/store/replicas.py listens). A write's own data-modifying CTEs left
for this statement (core/store/postgres/deferred_statements.py) go in front of it.
"""

from __future__ import annotations

import json
from functools import cache

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import TextClause

from core.store.committed_events import EVENTS_LOCK_KEY, NOTIFY_CHANNEL, notify_payload
from core.store.models import UTCDateTime
from core.store.port import QueuedEvents
from core.store.postgres.deferred_statements import Tail, take_pending

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
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


@cache
def _events_after(tail: Tail) -> TextClause:
    """The events statement with a write's CTEs in front; the lock waits for their rows
    (a CTE nobody reads runs at the end of the statement, under the lock)."""
    after = f" FROM (SELECT count(*) FROM {tail.last}) AS written"
    sql = f"WITH {tail.ctes},{_PG_EVENTS_SQL.format(after=after)}"
    return text(sql).bindparams(_EVENTS_NOW, *tail.binds)


def insert_events(session: Session, events: QueuedEvents) -> list[int]:
    connection = session.connection()
    pending = take_pending(connection)
    if not events.rows:
        if pending is not None:  # no events statement: they go alone
            connection.execute(pending[0].alone(), dict(pending[1]))
        if events.wake:  # only wake-ups: no event rows, so no lock
            payload = notify_payload(events.wake, events.token)
            connection.execute(_NOTIFY, {"channel": NOTIFY_CHANNEL, "payload": payload})
        return []
    params = {
        "lock_key": EVENTS_LOCK_KEY,
        "rows": json.dumps(list(events.rows)),
        "now": events.created_at,
        "channel": NOTIFY_CHANNEL,
        "wake": notify_payload(events.wake, events.token),
    }
    statement = _PG_EVENTS
    if pending is not None:
        statement = _events_after(pending[0])
        params.update(pending[1])
    return [int(id_) for id_ in session.scalars(statement, params)]

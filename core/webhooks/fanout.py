"""Deliveries made from the event rows after COMMIT, by one replica at a time.

Every change a webhook tells of already writes event rows, durably, in its own
transaction, and their ids ascend in commit order (core/store/committed_events.py). So
the write paths pay nothing for webhooks: a sender's round reads the events past a
cursor kept in `meta`, writes one delivery per enabled endpoint that hears each, and
moves the cursor, in one transaction. On PostgreSQL the cursor row is taken `FOR UPDATE
SKIP LOCKED`, so one replica fans out while the others skip the round; on SQLite there
is one writer. An endpoint hears the events after the newest one when it was made or
last enabled (`hears_after`).

With no endpoint enabled, a round writes nothing but, now and then, moves the cursor to
the newest event, so that an endpoint made later does not read through old ones. The
migration that made the tables made the cursor at the newest event then.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import groupby
from typing import Final

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.store.bus import Pushed, StoredEvent
from core.store.models import Event, Meta, WebhookEndpoint
from core.webhooks.queue import queue_deliveries

CURSOR: Final = "webhooks_through_event"
BATCH: Final = 500  # events read in one round
IDLE_ADVANCE: Final = timedelta(seconds=30)  # with no endpoints, how often the cursor moves
_HEARING = select(
    WebhookEndpoint.id,
    WebhookEndpoint.owner,
    WebhookEndpoint.scope,
    WebhookEndpoint.events,
    WebhookEndpoint.hears_after,
).where(WebhookEndpoint.enabled.is_(True))


def any_endpoint(session: Session) -> bool:
    return session.scalar(select(WebhookEndpoint.id).limit(1)) is not None


def fan_out(session: Session, *, advance_if_idle: bool = False) -> int:
    """Deliveries for the next events past the cursor; the number of events read (0:
    none new, none heard, or another replica holds the cursor). With no endpoint
    enabled, and `advance_if_idle`, the cursor moves to the newest event instead."""
    cursor = _take_cursor(session)
    if cursor is None:  # another replica's round holds it, or (made by the migration) gone
        _restore_cursor(session)
        cursor = _take_cursor(session)
        if cursor is None:
            return 0
    endpoints = session.execute(_HEARING).all()
    if not endpoints:  # read in this transaction: one made since is seen here
        if advance_if_idle:
            cursor.value = str(newest_event(session))
        return 0
    rows = session.execute(
        select(Event.id, Event.recipient, Event.type, Event.payload, Event.created_at)
        .where(Event.id > int(cursor.value))
        .order_by(Event.id)
        .limit(BATCH)
    ).all()
    if not rows:
        return 0
    # The rows of one transaction share their time: each group is one change's rows.
    for _when, group in groupby(rows, key=lambda row: row.created_at):
        events: list[Pushed] = [
            (r.recipient, StoredEvent(r.id, r.type, r.payload, r.created_at)) for r in group
        ]
        first = events[0][1].id
        hearing = [tuple(e)[:4] for e in endpoints if e.hears_after < first]
        if hearing:
            queue_deliveries(session, hearing, events)
    cursor.value = str(rows[-1].id)
    return len(rows)


def _take_cursor(session: Session) -> Meta | None:
    return session.scalar(select(Meta).where(Meta.key == CURSOR).with_for_update(skip_locked=True))


def _restore_cursor(session: Session) -> None:
    """A lost cursor starts from the first event kept: each endpoint's `hears_after`
    keeps it from hearing what came before it."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    insert = dialect.insert(Meta).values(key=CURSOR, value="0")
    session.execute(insert.on_conflict_do_nothing(index_elements=["key"]))


def newest_event(session: Session) -> int:
    return int(session.scalar(select(func.max(Event.id))) or 0)

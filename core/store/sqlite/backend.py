"""SQLite's implementation of the storage port (core/store/port.py).

A statement on SQLite is an in-process call: a new mail's rows go through the
common statements, run on the cursor (core/store/sqlite/cursor.py); what makes
SQLite fast lives in its transactions (group commit, held connections).
"""

from __future__ import annotations

from sqlalchemy import Insert, Table, insert
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from core.store.models import Event, table_of
from core.store.port import NewMail, QueuedEvents
from core.store.prepared import Prepared

_EVENTS = table_of(Event)
# Built once; the ids come back in the order of the rows (one multi-row INSERT).
_INSERT_EVENTS = Prepared(insert(_EVENTS).returning(_EVENTS.c.id, sort_by_parameter_order=True))


class SqliteBackend:
    """Events in one multi-row INSERT; the writer thread wakes their readers itself."""

    name = "sqlite"
    serial_writes = True  # one writer thread, `BEGIN IMMEDIATE`

    def insert_or_skip(self, table: Table) -> Insert:
        return sqlite.insert(table).on_conflict_do_nothing()

    def serialize(self, session: Session, key: int) -> None:
        return None

    def can_write_mail_at_once(self) -> bool:
        return False

    def write_mail_at_once(self, session: Session, mail: NewMail) -> int | None:
        raise NotImplementedError("SQLite writes a new mail through the common statements")

    def insert_events(self, session: Session, events: QueuedEvents) -> list[int]:
        if not events.rows:
            return []
        rows = [{**row, "created_at": events.created_at} for row in events.rows]
        return [row[0] for row in _INSERT_EVENTS.run(session.connection(), rows)]

"""PostgreSQL's implementation of the storage port (core/store/port.py)."""

from __future__ import annotations

from sqlalchemy import Insert, Table, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from core.store.port import NewMail, QueuedEvents
from core.store.postgres import events_statement, mail_statement

_LOCK = text("SELECT pg_advisory_xact_lock(:k)")


class PostgresBackend:
    """A new mail in one statement, the events under their lock with NOTIFY."""

    name = "postgresql"
    serial_writes = False

    def insert_or_skip(self, table: Table) -> Insert:
        return postgresql.insert(table).on_conflict_do_nothing()

    def serialize(self, session: Session, key: int) -> None:
        session.execute(_LOCK, {"k": key})

    def can_write_mail_at_once(self) -> bool:
        return True

    def write_mail_at_once(self, session: Session, mail: NewMail) -> int | None:
        return mail_statement.write_mail(session, mail)

    def insert_events(self, session: Session, events: QueuedEvents) -> list[int]:
        return events_statement.insert_events(session, events)

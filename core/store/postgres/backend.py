"""PostgreSQL's implementation of the storage port (core/store/port.py)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.store.port import NewMail, QueuedEvents
from core.store.postgres import events_statement, mail_statement


class PostgresBackend:
    """A new mail in one statement, the events under their lock with NOTIFY."""

    name = "postgresql"

    def can_write_mail_at_once(self) -> bool:
        return True

    def write_mail_at_once(self, session: Session, mail: NewMail) -> int | None:
        return mail_statement.write_mail(session, mail)

    def insert_events(self, session: Session, events: QueuedEvents) -> list[int]:
        return events_statement.insert_events(session, events)

"""The storage port: what the domain hands a backend, as plain values, and what it gets back.

The domain (core/mail, core/identity, …) decides — checks, budgets, hops,
status, routing, placement — and writes through the statements common to both
databases (`Prepared` ones and Core). Where a database has a faster way to write
the same rows, the domain hands it the rows and the backend writes them its way:
a `Backend` is one database's implementation (core/store/sqlite/,
core/store/postgres/), found from the Session the domain writes in
(`backend_of`). The contract suite (tests/contract/) runs every operation on
both and compares the rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Insert, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from core.store.prepared import Prepared

Placement = tuple[str, str]  # (owner, IMAP folder key)


@dataclass(frozen=True, slots=True)
class ConversationWrite:
    """The conversation row after a mail whose status the domain knew beforehand."""

    conversation_id: str
    status: str
    rounds: int  # added to `budget_used`
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class NewMail:
    """A new mail's rows: the `mails` row (`mail`, column → value; a column left out
    takes the model's default), a delivery per recipient (name → `to`/`cc`, in
    order), a UID in each folder of `placements` (created when missing, with
    `uid_validity`), the conversation's `participants` (kept once each), and the
    conversation's write-back. `seq_needed`: the caller writes more rows that
    name the mail's `seq` in this transaction."""

    mail: Mapping[str, Any]
    recipients: Mapping[str, str]
    placements: Sequence[Placement]
    participants: Sequence[str]
    uid_validity: int
    conversation: ConversationWrite
    seq_needed: bool


@dataclass(frozen=True, slots=True)
class QueuedEvents:
    """The events of a transaction (recipient, type, payload), inserted last, and
    everyone its commit wakes (`wake`)."""

    rows: Sequence[Mapping[str, Any]]
    wake: set[str]
    created_at: datetime
    token: str  # the writing store's, for its own replicas' NOTIFY


class Backend(Protocol):
    """One database's way of writing what the domain decided."""

    name: str
    serial_writes: bool  # one write transaction at a time: no lock order can deadlock

    def insert_or_skip(self, table: Table) -> Insert:
        """An INSERT of `table` that skips a row whose unique key exists already."""
        ...

    def serialize(self, session: Session, key: int) -> None:
        """Hold the lock named `key` to the end of the transaction: the transactions
        that take it run one at a time (a no-op where writes are serial anyway)."""
        ...

    def write_mail_at_once(self, session: Session, mail: NewMail) -> int | None:
        """Every row of `mail` at once, and the mail's `seq` (None when not
        `seq_needed` and the rows are left for the transaction's last statement)."""
        ...

    def can_write_mail_at_once(self) -> bool:
        """Whether `write_mail_at_once` is this backend's way (otherwise the domain
        writes a new mail through the common statements)."""
        ...

    def insert_events(self, session: Session, events: QueuedEvents) -> list[int]:
        """Insert the events last in the transaction (their ids, ascending) and see
        that `events.wake` is woken after COMMIT, in this process and any other."""
        ...


_BACKENDS: dict[type[Dialect], Backend] = {}


def register_backend(dialect: type[Dialect], backend: Backend) -> None:
    _BACKENDS[dialect] = backend


def backend_of(session: Session) -> Backend:
    """The backend of the database `session` writes to."""
    return _BACKENDS[type(session.connection().dialect)]


_SKIPPING: dict[tuple[str, str], Prepared] = {}


def insert_or_skip(session: Session, table: Table) -> Prepared:
    """`Backend.insert_or_skip` of `session`'s backend, built once per table."""
    backend = backend_of(session)
    prepared = _SKIPPING.get((backend.name, table.name))
    if prepared is None:
        prepared = _SKIPPING[(backend.name, table.name)] = Prepared(backend.insert_or_skip(table))
    return prepared

"""Writes a PostgreSQL transaction leaves for its last statement, the events insert.

A PostgreSQL statement is a round trip (docs/performance.md), most of a send's
CPU. A write whose rows nobody reads before COMMIT — a mail to an existing
conversation (core/store/postgres/mail_statement.py) — can hand its
data-modifying CTEs to the store instead of running them: the events statement
(core/store/postgres/events_statement.py) sends them in the one statement that inserts the
transaction's events, so they cost no round trip of their own.

It changes nothing anyone can see: should any other statement run on the
connection before (another mail of the same SMTP message, an idempotency record,
an ORM flush), the pending CTEs run first, alone, so every statement still sees
the rows written before it. A transaction rolled back with one pending leaves it
on the connection's `info`; the next `begin` drops it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter, TextClause

_PENDING = "agentmail_tail"


@dataclass(frozen=True, eq=False, slots=True)
class Tail:
    """Data-modifying CTEs (`name AS (…), …`, no `WITH`), their typed parameters, and
    the name of the CTE that reads all the others (`last`): the events lock waits
    for it, so it is taken only once these rows are written and their row locks
    held (the global lock order; a row waited for under the events lock stalls
    every writer, and deadlocks one that holds the row and waits for the lock).
    `last` must be `MATERIALIZED` and read every other CTE in its columns: an
    inlined CTE loses the columns nobody reads, and a data-modifying CTE nobody
    reads runs at the end of the statement, after the lock."""

    ctes: str
    binds: tuple[BindParameter[Any], ...]
    last: str

    def alone(self) -> TextClause:
        return _alone(self)


@cache  # tails are module constants, hashed by identity
def _alone(tail: Tail) -> TextClause:
    return text(f"WITH {tail.ctes} SELECT * FROM {tail.last}").bindparams(*tail.binds)


def run_at_commit(session: Session, tail: Tail, params: Mapping[str, Any]) -> None:
    """Leave `tail` to the events statement of this transaction (PostgreSQL)."""
    connection = session.connection()
    run_pending(connection)  # one at a time: an earlier one goes first
    connection.info[_PENDING] = (tail, params)


def take_pending(connection: Connection) -> tuple[Tail, Mapping[str, Any]] | None:
    """The pending tail, now the caller's to run."""
    pending: tuple[Tail, Mapping[str, Any]] | None = connection.info.pop(_PENDING, None)
    return pending


def run_pending(connection: Connection) -> None:
    pending = take_pending(connection)
    if pending is not None:
        tail, params = pending
        connection.execute(tail.alone(), dict(params))


def watch_tails(engine: Engine) -> None:
    """Run a pending tail before any other statement of its transaction."""

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.info.pop(_PENDING, None)  # left over by a transaction that was rolled back

    @event.listens_for(engine, "before_execute")
    def _before(conn: Connection, *_: Any) -> None:
        if _PENDING in conn.info:
            run_pending(conn)

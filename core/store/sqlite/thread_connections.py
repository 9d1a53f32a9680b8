"""SQLite connections kept by the threads that use them, from one transaction to the next.

On SQLite the store's transactions run in threads of its own: one writer thread
and a few reader threads (core/store/engine.py). Checking a connection out of the
pool and back in for every transaction (the pool's reset on return is a ROLLBACK
the driver sends) would cost more than a short read itself: each thread keeps the
connection it first took.

The rule that makes that safe: whenever a transaction ended with the connection
still inside a transaction (for SQLAlchemy or for the driver) or invalidated, the
thread throws that connection away and takes a fresh one next time. (An open WAL
read transaction would also keep checkpoints from finishing.)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection, RootTransaction
from sqlalchemy.engine.interfaces import CoreExecuteOptionsParameter
from sqlalchemy.orm import Session

T = TypeVar("T")


class HeldConnections:
    """One connection per thread of `engine`'s pool, kept until `release` or `close`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._local = threading.local()
        self._lock = threading.Lock()
        self._held: set[Connection] = set()

    def connection(self) -> Connection:
        """This thread's connection, checked out of the pool the first time."""
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is None or connection.closed or connection.invalidated:
            if connection is not None:
                self.release()
            connection = self._engine.connect()
            self._local.connection = connection
            with self._lock:
                self._held.add(connection)
        return connection

    def release(self) -> None:
        """Give this thread's connection back to the pool (thrown away if unclean)."""
        connection: Connection | None = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            with self._lock:
                self._held.discard(connection)
            _close(connection)

    def release_unless_clean(self) -> None:
        """After a failed transaction: keep the connection only if it is outside any
        transaction and still valid."""
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is not None and not is_clean(connection):
            self.release()

    def close(self) -> None:
        """Every kept connection back to the pool (once the threads have stopped)."""
        with self._lock:
            held, self._held = self._held, set()
        for connection in held:
            _close(connection)

    def read(self, fn: Callable[[Session], T]) -> T:
        """`fn` in a transaction of its own on this thread's connection."""
        connection = self.connection()
        try:
            transaction = connection.begin()
            session = joined_session(connection)
            try:
                result = fn(session)
                session.flush()
            except BaseException:
                end_joined(transaction, session, commit=False)
                raise
            end_joined(transaction, session, commit=True)
            return result
        except BaseException:
            self.release_unless_clean()
            raise


def joined_session(connection: Connection) -> Session:
    """A Session inside the transaction the caller began on `connection` and ends
    itself (`end_joined`): the Session's own begin, commit and close (its state
    machine and events) cost several times the connection's, on every write and
    read of the store's threads. A function that
    rolls the Session back rolls the transaction back; its `commit` is not passed on."""
    return _JoinedSession(
        bind=connection, join_transaction_mode="rollback_only", expire_on_commit=False
    )


class _JoinedSession(Session):
    """`connection()` answered from the first call while the Session's transaction
    lasts: a send asks for it about ten times (every prepared statement), and the
    Session's bookkeeping runs for each call (core/store/prepared.py)."""

    _kept: tuple[object, Connection] | None = None

    def connection(
        self,
        bind_arguments: Any = None,
        execution_options: CoreExecuteOptionsParameter | None = None,
    ) -> Connection:
        kept = self._kept
        if bind_arguments is None and execution_options is None:
            transaction = self.get_transaction()
            if kept is not None and kept[0] is transaction:
                return kept[1]
            connection = super().connection()
            self._kept = (self.get_transaction(), connection)
            return connection
        return super().connection(bind_arguments, execution_options)


def end_joined(transaction: RootTransaction, session: Session, *, commit: bool) -> None:
    """Close the Session (its objects stay readable), then COMMIT or ROLLBACK;
    a failed COMMIT raises."""
    session.close()
    if commit:
        transaction.commit()
    elif transaction.is_active:  # not already rolled back through the Session
        transaction.rollback()


def is_clean(connection: Connection) -> bool:
    """Valid, and outside a transaction both for SQLAlchemy and for the driver."""
    if connection.closed or connection.invalidated or connection.in_transaction():
        return False
    driver = connection.connection.driver_connection
    return not bool(getattr(driver, "in_transaction", False))  # sqlite3: True inside BEGIN


def _close(connection: Connection) -> None:
    """Back to the pool; one left inside a transaction is thrown away. The pool's reset
    would not roll it back: SQLAlchemy skips it for a connection it believes idle, and
    after a failed COMMIT (a deferred foreign key) sqlite3 is still inside the
    transaction SQLAlchemy counts as ended, so every later BEGIN failed."""
    with contextlib.suppress(Exception):
        if not is_clean(connection):
            connection.invalidate()  # the pool opens a new one for the next checkout
        connection.close()

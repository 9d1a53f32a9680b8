"""Group commit for SQLite: several write transactions, one COMMIT, one fsync.

With `synchronous=FULL` every COMMIT waits for an fsync of the WAL, and SQLite has
one writer at a time. So the store's single writer thread takes every write
queued at that moment (up to `MAX_GROUP`) and runs them in one database
transaction, each in a SAVEPOINT of its own with a session of its own:

* a function that raises is rolled back to its savepoint (its rows and its queued
  events go) and its caller gets its exception; the others go on;
* nobody's future is resolved before the one COMMIT returned, so a caller is never
  told "done" (SMTP `250`, REST `200`) about a write that is not durable;
* if the COMMIT (or a savepoint rollback) fails, every caller in the group gets
  that error: none of their work was committed;
* a group of one (a quiet moment) runs without a SAVEPOINT: two statements less;
* what a committed write must tell (`told`: the store pushes its events to the
  streams) is told in the loop callback that resolves its future, the first loop
  turn after the COMMIT, before its caller runs again and whether or not the caller
  still waits: a stream is woken a turn or two sooner on a busy loop.

Event ids stay in commit order: the group's events are inserted in the order of
its functions, and the group commits as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from core.store.sqlite.thread_connections import HeldConnections, end_joined, joined_session

T = TypeVar("T")
U = TypeVar("U")
MAX_GROUP = 64  # writes per COMMIT: bounds the latency one slow group adds
_log = logging.getLogger(__name__)

Outcome = tuple[Any, Any]  # the function's result, what to tell once committed (its events)
Runner = Callable[[Session], Outcome]  # runs a transaction function and flushes its events


@dataclass(slots=True)
class _Job:
    run: Runner
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Outcome]
    told: Callable[[Any], None] | None = None


class _SavepointFailed(Exception):
    """Rolling back one function's savepoint failed: the transaction is unusable."""


class GroupCommitWriter:
    """Runs queued write functions in groups on one writer thread."""

    def __init__(
        self, engine: Engine, executor: ThreadPoolExecutor, limit: int = MAX_GROUP
    ) -> None:
        """`limit` caps the writes per COMMIT (1 = a transaction each, as without groups)."""
        self._limit = limit
        self._executor = executor
        self._queue: deque[_Job] = deque()
        self._lock = threading.Lock()
        # The writer thread's one connection, kept across transactions
        # (core/store/sqlite/thread_connections.py).
        self.connections = HeldConnections(engine)

    async def submit(
        self, run: Callable[[Session], tuple[T, U]], told: Callable[[U], None] | None = None
    ) -> tuple[T, U]:
        """Queue `run` (a transaction function that also flushes its events); its
        result once the group it ran in has committed. `told(what)` runs on the loop
        once `run`'s work is committed (not when it failed), just before the result
        is handed over, even if the caller no longer waits; it must not raise."""
        loop = asyncio.get_running_loop()
        job = _Job(run, loop, loop.create_future(), told)
        with self._lock:
            self._queue.append(job)
        # One drain per job: the first drain takes every job queued by then and the
        # drains that follow find fewer (or none) left.
        self._executor.submit(self._drain)
        return cast(tuple[T, U], await job.future)

    def _take(self) -> list[_Job]:
        with self._lock:
            count = min(len(self._queue), self._limit)
            return [self._queue.popleft() for _ in range(count)]

    def _drain(self) -> None:
        jobs = self._take()
        if not jobs:
            return
        try:
            outcomes = self._run_group(jobs)
        except BaseException as exc:  # the COMMIT or the transaction failed: nothing stuck
            self.connections.release()
            for job in jobs:
                _resolve(job, exc)
            return
        # A function may have ended the transaction its own way: the next group must
        # start on a connection outside any transaction.
        self.connections.release_unless_clean()
        for job, outcome in zip(jobs, outcomes, strict=True):
            _resolve(job, outcome)

    def _run_group(self, jobs: list[_Job]) -> list[Outcome | BaseException]:
        if len(jobs) == 1:
            return [self._run_alone(jobs[0].run)]
        connection = self.connections.connection()
        with connection.begin():
            return [_run_in_savepoint(connection, job.run) for job in jobs]

    def _run_alone(self, run: Runner) -> Outcome | BaseException:
        """A group of one needs no SAVEPOINT: rolling back its transaction takes only
        its own work. A failed COMMIT raises, as for a group."""
        connection = self.connections.connection()
        transaction = connection.begin()  # BEGIN IMMEDIATE
        session = joined_session(connection)
        try:
            outcome = run(session)
            session.flush()
        except Exception as exc:
            end_joined(transaction, session, commit=False)
            return exc
        end_joined(transaction, session, commit=True)
        return outcome


def _run_in_savepoint(connection: Connection, run: Runner) -> Outcome | BaseException:
    """One function in its own SAVEPOINT and its own Session (so objects it returns
    are never touched by another function's changes or rollback)."""
    session = Session(
        bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False
    )
    try:
        with session.begin():
            return run(session)
    except Exception as exc:
        if _transaction_lost(connection):
            # Some SQLite errors (disk full, I/O) end the whole transaction: going on
            # would run the next function outside it, so the group fails as one.
            raise _SavepointFailed("the write transaction was lost") from exc
        return exc
    finally:
        session.close()


def _transaction_lost(connection: Connection) -> bool:
    if connection.invalidated or not connection.in_transaction():
        return True
    driver = connection.connection.driver_connection
    return not bool(getattr(driver, "in_transaction", True))  # sqlite3: False = autocommit


def _resolve(job: _Job, outcome: Outcome | BaseException) -> None:
    def settle() -> None:
        if job.told is not None and not isinstance(outcome, BaseException):
            try:
                job.told(outcome[1])
            except Exception:  # the write is committed all the same: its caller hears so
                _log.exception("telling what a committed write did failed")
        if job.future.done():  # the caller was cancelled; the write happened anyway
            return
        if isinstance(outcome, BaseException):
            job.future.set_exception(outcome)
        else:
            job.future.set_result(outcome)

    with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
        job.loop.call_soon_threadsafe(settle)

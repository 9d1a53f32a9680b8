"""An unexpected failure is temporary only when a retry may succeed (core/store/transient.py):
SMTP answers `451` for those and `550 5.6.0` for the rest, IMAP APPEND `NO [UNAVAILABLE]`
and `NO [CANNOT]` — never a 4xx a client retries for days, never pymap's `BYE`.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile

import asyncpg.exceptions as pg
import pytest
from sqlalchemy import exc as sa

from core.errors import InvalidRequest, StorageFull, StorageUnavailable
from core.store.transient import is_transient
from imap_view.replies import failure_refusal
from smtp_in.replies import failure_reply


def _wrapped(orig: BaseException, kind: type[sa.DBAPIError] = sa.DBAPIError) -> BaseException:
    """As SQLAlchemy raises a driver's error: its own class, the driver's as `orig`."""
    try:
        raise kind("INSERT …", {}, orig) from orig
    except sa.DBAPIError as error:
        return error


def _sqlite_error(statement: str) -> sqlite3.Error:
    """A real SQLite error (with its error code), as the driver raises it."""
    holder = sqlite3.connect(":memory:")
    try:
        holder.executescript("CREATE TABLE t (k INTEGER UNIQUE); INSERT INTO t VALUES (1);")
        holder.execute(statement)
    except sqlite3.Error as error:
        return error
    finally:
        holder.close()
    raise AssertionError(statement)


def _locked() -> sqlite3.Error:
    """SQLite's "database is locked": another connection holds the write lock."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "locked.db")
        holder = sqlite3.connect(path, isolation_level=None)
        other = sqlite3.connect(path, timeout=0)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            other.execute("CREATE TABLE u (x)")
        except sqlite3.Error as error:
            return error
        finally:
            other.close()
            holder.close()
    raise AssertionError("not locked")


TEMPORARY = [
    _wrapped(_locked(), sa.OperationalError),
    _wrapped(pg.AdminShutdownError("terminating connection"), sa.OperationalError),
    _wrapped(pg.LockNotAvailableError("could not obtain lock"), sa.OperationalError),
    _wrapped(pg.QueryCanceledError("statement timeout"), sa.OperationalError),
    _wrapped(pg.SerializationError("could not serialize"), sa.OperationalError),
    sa.TimeoutError("QueuePool limit reached"),
    ConnectionRefusedError(errno.ECONNREFUSED, "refused"),
    OSError(errno.ENOSPC, "No space left on device"),
    StorageFull("full"),
    StorageUnavailable("the object store is away"),
    MemoryError(),
]
PERMANENT = [
    RecursionError("maximum recursion depth exceeded"),
    ValueError("a bug met by this input"),
    _wrapped(_sqlite_error("INSERT INTO t VALUES (1)"), sa.IntegrityError),
    _wrapped(pg.UniqueViolationError("duplicate key"), sa.IntegrityError),
    _wrapped(pg.StringDataRightTruncationError("value too long"), sa.DataError),
    # An OperationalError whose SQLSTATE says it never passes (class 54).
    _wrapped(pg.ProgramLimitExceededError("index row size exceeds maximum"), sa.OperationalError),
    InvalidRequest("refused on purpose"),
]


@pytest.mark.parametrize("error", TEMPORARY, ids=lambda e: type(e).__name__)
def test_failures_a_retry_can_get_past_are_temporary(error: BaseException) -> None:
    assert is_transient(error)
    if not isinstance(error, StorageFull):
        assert failure_reply(error).startswith("451 4.3.0 ")
        assert failure_refusal(error, "APPEND").code == b"UNAVAILABLE"


@pytest.mark.parametrize("error", PERMANENT, ids=lambda e: type(e).__name__)
def test_every_other_failure_is_permanent(error: BaseException) -> None:
    assert not is_transient(error)
    reply = failure_reply(error)
    assert reply.startswith("550 5.6.0 "), reply
    assert failure_refusal(error, "APPEND").code == b"CANNOT"


def test_a_bug_met_while_handling_a_lost_connection_is_still_a_bug() -> None:
    try:
        try:
            raise ConnectionResetError("lost")
        except ConnectionResetError:
            raise KeyError("a bug") from None
    except KeyError as error:
        assert not is_transient(error)


def test_the_permanent_failure_is_logged_with_its_stack(caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise RecursionError("deep")
    except RecursionError as error:
        failure_reply(error)
    [record] = [r for r in caplog.records if r.name == "agentmail.smtp"]
    assert record.levelname == "ERROR" and record.exc_info is not None

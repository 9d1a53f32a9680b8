"""A full disk, recognised wherever it shows, and refused as `StorageFull`.

It shows as SQLite's `SQLITE_FULL` ("database or disk is full"), PostgreSQL's
SQLSTATE 53100 (`disk_full`), or `ENOSPC` / `EDQUOT` from a file write (an
attachment). Whatever the entrance, the client is told the same thing — the
server's storage is full, nothing of the request was kept, try again later —
as `507` (REST), `452 4.3.1` (SMTP) or `NO [OVERQUOTA]` (IMAP). Nothing needs a
restart: SQLite rolls back the transaction that could not grow the database or
its WAL, and the next write that fits goes through (docs/deploy.md, "A full disk").
"""

from __future__ import annotations

import errno
import sqlite3

from core.errors import StorageFull

_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_DISK_FULL_SQLSTATE = "53100"
MESSAGE = (
    "the gateway's storage is full: nothing of this request was kept; "
    "try again once space has been freed"
)


def is_disk_full(error: BaseException) -> bool:
    """True when `error`, or an error it wraps or was raised from, says the disk is full."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _ERRNOS:
            return True
        if isinstance(current, sqlite3.Error) and current.sqlite_errorcode == sqlite3.SQLITE_FULL:
            return True
        if getattr(current, "sqlstate", None) == _DISK_FULL_SQLSTATE:
            return True
        wrapped = getattr(current, "orig", None)  # SQLAlchemy's DBAPIError: the driver's
        if isinstance(wrapped, BaseException) and id(wrapped) not in seen:
            current = wrapped
        else:
            current = current.__cause__ or current.__context__
    return False


def storage_full() -> StorageFull:
    return StorageFull(MESSAGE)

"""Whether an unexpected failure may pass: the line between "try again later" and "never".

A mail client retries a temporary refusal for days (SMTP `4xx`, RFC 5321 §4.2.5), so
only a failure that a later attempt can get past is temporary: the database away
or busy (a lost connection, a lock timeout, a server shutting down, a full pool),
the disk full, the object store away, an I/O error, the process out of memory.
Anything else — a value
the database refuses, a bug met by this input — fails again for the same input, and
is permanent (`550 5.6.0`, IMAP `NO [CANNOT]`). Adapters map the answer; this is the
one place that decides it.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import exc as sa

from core.errors import DomainError, StorageFull, StorageUnavailable
from core.store.disk_full import is_disk_full

__all__ = ["is_transient"]

# SQLSTATE classes a later attempt can get past (PostgreSQL Appendix A): connection
# exceptions, transaction rollback (serialization, deadlock), insufficient resources,
# object not in prerequisite state (lock not available), operator intervention
# (shutdown, statement timeout), system error (I/O).
_TRANSIENT_CLASSES = frozenset({"08", "40", "53", "55", "57", "58"})


# Failures of the database's link, its lock or the machine, when no SQLSTATE says more.
_TRANSIENT_TYPES = (
    sa.OperationalError,  # SQLite: locked, busy, I/O error; any driver: a lost connection
    sa.InterfaceError,
    sa.TimeoutError,  # the connection pool
    sa.DisconnectionError,
    sqlite3.OperationalError,
    sqlite3.InterfaceError,
    OSError,  # a connection, a file (TimeoutError and ConnectionError are OSErrors)
    MemoryError,
)


def is_transient(error: BaseException) -> bool:
    """True when the same request may succeed later (see the module doc)."""
    if isinstance(error, StorageFull | StorageUnavailable) or is_disk_full(error):
        return True
    if isinstance(error, DomainError):  # refused on purpose: the adapters' tables decide
        return False
    chain = _chain(error)
    for current in chain:  # PostgreSQL's own word first: class 22 or 23 never passes
        sqlstate = getattr(current, "sqlstate", None) or getattr(current, "pgcode", None)
        if isinstance(sqlstate, str) and len(sqlstate) == 5:
            return sqlstate[:2] in _TRANSIENT_CLASSES
    for current in chain:
        if isinstance(current, sa.DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, _TRANSIENT_TYPES):
            return True
    return False


def _chain(error: BaseException) -> list[BaseException]:
    """`error`, the driver's error it wraps, and the errors it was raised from (not
    those it was raised while handling: a bug met in an `except OSError` is a bug)."""
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not e for e in found):
        found.append(current)
        wrapped = getattr(current, "orig", None)  # SQLAlchemy's DBAPIError: the driver's
        if isinstance(wrapped, BaseException) and all(wrapped is not e for e in found):
            current = wrapped
        else:
            current = current.__cause__  # `raise … from`: what it says it comes from
    return found

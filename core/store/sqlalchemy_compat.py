"""Every SQLAlchemy internal the store relies on, in one place, checked at start-up.

The SQLite backend runs its fixed statements on the driver's cursor
(core/store/sqlite/cursor.py) and sends SAVEPOINTs as plain text
(core/store/sqlite/engines.py); PostgreSQL's transactions run in SQLAlchemy's
greenlet bridge (core/store/postgres/transactions.py). Those reach into parts of
SQLAlchemy that are not its documented API and may move in any release: they go
through the functions here and nowhere else, and `check()` (run when a `Store`
opens) fails at once, with SQLAlchemy's version, when one is gone — not in the
middle of a send.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

import sqlalchemy
from sqlalchemy.engine import Connection, Dialect, Engine
from sqlalchemy.engine.default import DefaultDialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.util import concurrency

T = TypeVar("T")
Listener = Callable[..., Any]

# (owner, attribute): what `check` looks for.
_REQUIRED: tuple[tuple[object, str], ...] = (
    (Connection, "_has_events"),
    (Engine, "_has_events"),
    (Connection, "dispatch"),
    (DefaultDialect, "do_savepoint"),
    (DefaultDialect, "do_release_savepoint"),
    (DefaultDialect, "do_rollback_to_savepoint"),
    (DBAPIError, "instance"),
    (concurrency, "greenlet_spawn"),
    (SQLCompiler, "_process_parameters_for_postcompile"),
)


class SQLAlchemyChanged(RuntimeError):
    """An internal the store uses is missing from the installed SQLAlchemy."""


def check() -> None:
    """Raise `SQLAlchemyChanged` naming what is missing and the installed version."""
    missing = [
        f"{getattr(owner, '__name__', owner)}.{name}"
        for owner, name in _REQUIRED
        if not hasattr(owner, name)
    ]
    if missing:
        raise SQLAlchemyChanged(
            f"SQLAlchemy {sqlalchemy.__version__} lacks {', '.join(missing)}, which the store "
            "uses (core/store/sqlalchemy_compat.py): install the version pyproject.toml allows"
        )


_NO_LISTENERS: tuple[Iterable[Listener], Iterable[Listener]] = ((), ())


def cursor_listeners(connection: Connection) -> tuple[Iterable[Listener], Iterable[Listener]]:
    """The `before_cursor_execute` and `after_cursor_execute` listeners of `connection`
    (its own and its engine's), to call around a statement run on the cursor; empty
    when none listens, without touching the event machinery."""
    if not (connection._has_events or connection.engine._has_events):
        return _NO_LISTENERS
    dispatch = connection.dispatch
    return dispatch.before_cursor_execute, dispatch.after_cursor_execute


def driver_error(sql: str, parameters: Any, error: Exception, dbapi_error: type) -> Exception:
    """The driver's `error` wrapped as Core would raise it (`IntegrityError`, …)."""
    wrapped: Exception = DBAPIError.instance(sql, parameters, error, dbapi_error)
    return wrapped


def replace_savepoints(dialect: Dialect, run: Callable[[Connection, str], None]) -> None:
    """Send `SAVEPOINT`, `RELEASE SAVEPOINT` and `ROLLBACK TO SAVEPOINT` through `run`
    (connection, SQL) instead of compiling a clause for each."""
    target: Any = dialect
    target.do_savepoint = lambda conn, name: run(conn, f"SAVEPOINT {name}")
    target.do_release_savepoint = lambda conn, name: run(conn, f"RELEASE SAVEPOINT {name}")
    target.do_rollback_to_savepoint = lambda conn, name: run(conn, f"ROLLBACK TO SAVEPOINT {name}")


def greenlet_spawn(fn: Callable[..., T], *args: Any) -> Coroutine[Any, Any, T]:
    """Run the synchronous `fn` in SQLAlchemy's greenlet bridge: its statements on an
    async driver (asyncpg) await on the loop."""
    spawn: Callable[..., Coroutine[Any, Any, T]] = concurrency.greenlet_spawn
    return spawn(fn, *args)


def expanded_in_lists(compiled: SQLCompiler, params: dict[str, Any]) -> tuple[str, list[str]]:
    """The SQL of `compiled` with each expanding `IN` parameter written out for the
    length of its list in `params`, and the parameter names by position (`seqs_1`,
    `seqs_2` … for `seqs`), as Core expands them when it executes."""
    expanded = compiled._process_parameters_for_postcompile(params)
    return expanded.statement, list(expanded.positiontup or ())

"""SQLite's engines for the store: WAL, `synchronous=FULL`, transactions begun by us.

The store (core/store/engine.py) has two of them over one file: the writer's
(`BEGIN IMMEDIATE`, one connection, so writers queue instead of failing with
"database is locked") and the readers' (`BEGIN`, a WAL snapshot each).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection

from core.store.prepared import register_runner
from core.store.sqlalchemy_compat import replace_savepoints
from core.store.sqlite.cursor import driver_sql, run_on_cursor


def sqlite_engine(url: str, begin: str, pool_size: int) -> Engine:
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=0,
        connect_args={"check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit survives power loss, not only a crash (WAL + NORMAL would not).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        driver_sql(conn, begin)  # once per transaction: no execution context for it

    _plain_savepoints(engine)
    register_runner(type(engine.dialect), run_on_cursor)
    return engine


def _plain_savepoints(engine: Engine) -> None:
    """SAVEPOINT statements sent as text on the driver's cursor: SQLAlchemy compiles a
    new clause for each (its names differ), which cost more than running it — once per
    grouped write (core/store/sqlite/group_commit.py). The names are SQLAlchemy's own
    (`sa_savepoint_N`)."""
    replace_savepoints(engine.dialect, driver_sql)

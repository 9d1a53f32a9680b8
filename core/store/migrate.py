"""Schema migrations (Alembic), run on start-up on the store's own connection."""

from __future__ import annotations

import logging
from functools import cache

from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from core.store.engine import Store
from core.store.schema_phases import (
    MIGRATIONS,
    migration_scripts,
    record_last_contract,
    schema_state,
)

_MIGRATION_LOCK_KEY = 0x61676D6D  # "agmm": one migrating replica at a time
VERSION_TABLE = "alembic_version"  # Alembic's default, which env.py keeps

log = logging.getLogger("agentmail.migrate")


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection) -> None:
    """On PostgreSQL, replicas started together on a new database take turns: the
    first creates the schema (in one transaction: PostgreSQL's DDL is transactional),
    the others wait on the lock and then find it current."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
    state = schema_state(connection, _current(connection), set(head_revisions()))
    if state.newer:  # a newer release migrated (a rolling upgrade): run on it if it may
        if state.problem is not None:
            raise SchemaTooNew(state.problem)
        log.warning(
            "the schema is at %s, newer than this release, with expand migrations only:"
            " serving on it",
            ", ".join(sorted(state.newer)),
        )
        return
    command.upgrade(alembic_config(connection), "head")
    record_last_contract(connection)


class SchemaTooNew(RuntimeError):
    """A newer release's contract migration ran: this release cannot serve on the schema."""


async def migrate(store: Store) -> None:
    """Bring the schema to the newest revision; a no-op when it is there already."""
    await store.run_on_connection(_upgrade)


def _current(connection: Connection) -> set[str]:
    """The revisions the database is at, read from Alembic's own table (what
    `MigrationContext.get_current_heads` reads) without a migration context: that
    logs two INFO lines each time, and `/readyz` asks on every probe."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return set()
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
    return {str(revision) for (revision,) in rows}


async def schema_problem(store: Store) -> str | None:
    """What keeps this release from serving on the database's schema (None: nothing):
    migrations not applied, or a newer release's contract migration.

    A replica started from an older wheel, or a restore of an older backup that no
    one migrated, reports here instead of failing on a missing column later. A
    database at a revision this code does not know is a newer release's: fine while
    only expand migrations ran past this release (core/store/schema_phases.py).
    """

    def read(connection: Connection) -> str | None:
        return schema_state(connection, _current(connection), head_revisions()).problem

    return await store.read(lambda session: read(session.connection()))


@cache
def head_revisions() -> set[str]:
    """The newest revision(s) the code ships (read once: the files do not change)."""
    return set(migration_scripts().get_heads())

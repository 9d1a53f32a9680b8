"""Whether this release can run on the database's schema, when a newer release migrated it.

A rolling upgrade restarts replicas one at a time: the first new one migrates, and the
older ones keep serving (and may restart) on a schema newer than they know. They can,
as long as every migration past their newest is an *expand* one (each migration says
its `phase`: core/store/migrations/versions/). Every migration run records, in `meta`,
the newest *contract* migration applied; an older release reads that row: if it names
a revision this release knows (or none), the newer schema only added to what it knows
and it runs; otherwise it refuses, saying so (docs/deploy.md, "Rolling upgrades").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

__all__ = [
    "LAST_CONTRACT_KEY",
    "MIGRATIONS",
    "SchemaState",
    "known_revisions",
    "migration_scripts",
    "record_last_contract",
    "schema_state",
]

LAST_CONTRACT_KEY: Final = "schema_last_contract"
MIGRATIONS: Final = Path(__file__).parent / "migrations"


@cache
def migration_scripts() -> ScriptDirectory:
    """The migrations this release ships (read once: the files do not change)."""
    return ScriptDirectory(str(MIGRATIONS))


@cache
def known_revisions() -> frozenset[str]:
    """Every revision this release ships."""
    return frozenset(script.revision for script in migration_scripts().walk_revisions())


@cache
def newest_contract() -> str:
    """The newest contract migration this release ships ("" for none)."""
    for script in migration_scripts().walk_revisions():  # from the head down
        if getattr(script.module, "phase", "expand") == "contract":
            return str(script.revision)
    return ""


def record_last_contract(connection: Connection) -> None:
    """After migrating: the newest contract migration the schema has had."""
    connection.execute(text("DELETE FROM meta WHERE key = :k"), {"k": LAST_CONTRACT_KEY})
    connection.execute(
        text("INSERT INTO meta (key, value) VALUES (:k, :v)"),
        {"k": LAST_CONTRACT_KEY, "v": newest_contract()},
    )


def _last_contract(connection: Connection) -> str | None:
    row = connection.execute(
        text("SELECT value FROM meta WHERE key = :k"), {"k": LAST_CONTRACT_KEY}
    ).first()
    return None if row is None else str(row[0])


@dataclass(frozen=True, slots=True)
class SchemaState:
    missing: frozenset[str]  # this release's heads the database lacks
    newer: frozenset[str]  # revisions of the database this release does not know
    contracted: bool  # a newer release removed what this one may use

    @property
    def problem(self) -> str | None:
        """What keeps this release from serving on the schema; None: nothing."""
        if self.newer and self.contracted:
            return (
                f"the schema is at {', '.join(sorted(self.newer))}, past a contract migration"
                " of a newer release: upgrade this replica"
            )
        if self.missing:
            return f"not applied: {', '.join(sorted(self.missing))}"
        return None


def schema_state(connection: Connection, current: set[str], heads: set[str]) -> SchemaState:
    """`current`: the database's revisions; `heads`: this release's."""
    newer = frozenset(current - known_revisions())
    if newer:  # a newer release migrated: did it only add?
        last = _last_contract(connection)
        contracted = last is None or (last != "" and last not in known_revisions())
        return SchemaState(frozenset(), newer, contracted)
    return SchemaState(frozenset(heads - current), frozenset(), False)

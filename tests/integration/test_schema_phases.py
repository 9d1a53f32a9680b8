"""A release on a schema a newer release migrated (a rolling upgrade), on both databases.

The newer release is stood in for by its traces in the database: Alembic's table at a
revision this release does not know, and the `meta` row naming the newest contract
migration applied. With only expand migrations past this release's head, it starts
(`migrate` leaves the schema alone) and `/readyz`'s check passes; past a contract
migration it refuses, and says to upgrade. A real newer migration run while replicas
serve is the cluster tests' rolling upgrade.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.migrate import SchemaTooNew, head_revisions, migrate, schema_problem
from core.store.schema_phases import LAST_CONTRACT_KEY, known_revisions, newest_contract
from tests.support.cli import created, open_store


@pytest.fixture
async def store(database_url: str, tmp_path: Path) -> AsyncIterator[Store]:
    await created(database_url, tmp_path / "data")
    opened = open_store(database_url)
    try:
        yield opened
    finally:
        await opened.close()


async def _newer_release_ran(store: Store, *, last_contract: str | None) -> None:
    """The traces a newer release's migration leaves: its revision, its meta row."""
    [head] = head_revisions()

    def write(session: Session) -> None:
        connection = session.connection()
        connection.execute(text("UPDATE alembic_version SET version_num = 'zz_newer'"))
        connection.execute(text("DELETE FROM meta WHERE key = :k"), {"k": LAST_CONTRACT_KEY})
        if last_contract is not None:
            connection.execute(
                text("INSERT INTO meta (key, value) VALUES (:k, :v)"),
                {"k": LAST_CONTRACT_KEY, "v": last_contract},
            )

    assert head in known_revisions()
    await store.write(write)


async def test_a_migrated_schema_records_its_newest_contract_migration(store: Store) -> None:
    found = await store.read(
        lambda s: s.execute(
            text("SELECT value FROM meta WHERE key = :k"), {"k": LAST_CONTRACT_KEY}
        ).scalar()
    )
    assert found == newest_contract() == "0010r"
    assert await schema_problem(store) is None


async def test_past_expand_migrations_only_this_release_serves(store: Store) -> None:
    await _newer_release_ran(store, last_contract=newest_contract())
    assert await schema_problem(store) is None
    await migrate(store)  # leaves the newer schema alone
    version = await store.read(
        lambda s: s.execute(text("SELECT version_num FROM alembic_version")).scalar()
    )
    assert version == "zz_newer"


@pytest.mark.parametrize("last_contract", ["zz_contract", None])
async def test_past_a_contract_migration_this_release_refuses(
    store: Store, last_contract: str | None
) -> None:
    await _newer_release_ran(store, last_contract=last_contract)
    problem = await schema_problem(store)
    assert problem is not None and "upgrade this replica" in problem, problem
    with pytest.raises(SchemaTooNew, match="past a contract migration"):
        await migrate(store)

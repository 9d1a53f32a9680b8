"""The migrations build exactly the schema the models describe, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from core.store.migrate import migrate
from core.store.models import Base
from gateway.server import Gateway


async def test_migrated_schema_matches_the_models(gateway: Gateway) -> None:
    store = gateway.store
    assert store is not None
    await migrate(store)  # a second run is a no-op
    differences: list[object] = []

    def compare(connection: Connection) -> None:
        differences.extend(compare_metadata(MigrationContext.configure(connection), Base.metadata))

    await store.run_on_connection(compare)
    assert differences == []

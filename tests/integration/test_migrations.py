"""The migrations build exactly the schema the models describe, on both databases."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from core.store.migrate import migrate
from gateway.server import Gateway
from tests.support.schema import schema_differences


async def test_migrated_schema_matches_the_models(gateway: Gateway) -> None:
    store = gateway.store
    assert store is not None
    await migrate(store)  # a second run is a no-op
    differences: list[object] = []

    def compare(connection: Connection) -> None:
        differences.extend(schema_differences(connection))

    await store.run_on_connection(compare)
    assert differences == []

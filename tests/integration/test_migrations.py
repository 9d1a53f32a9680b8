"""The migrations build exactly the schema the models describe, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from core.store.migrate import migrate
from core.store.models import Base
from core.store.search_index import INDEX_TABLES
from gateway.server import Gateway


async def test_migrated_schema_matches_the_models(gateway: Gateway) -> None:
    store = gateway.store
    assert store is not None
    await migrate(store)  # a second run is a no-op
    differences: list[object] = []

    def not_the_search_index(name: str | None, kind: str, _parents: object) -> bool:
        # The search index is the database's own (FTS5 / pg_trgm), not a model.
        return not (kind == "table" and name in INDEX_TABLES)

    def compare(connection: Connection) -> None:
        options = {"include_name": not_the_search_index}
        context = MigrationContext.configure(connection, opts=options)
        differences.extend(compare_metadata(context, Base.metadata))

    await store.run_on_connection(compare)
    assert differences == []

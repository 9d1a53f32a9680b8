"""The migrated schema compared with the models, leaving out the search index
(the database's own FTS5 / pg_trgm tables, named in core/store/search_index.py)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from core.store.models import Base
from core.store.search_index import INDEX_TABLES


def _not_the_search_index(name: str | None, kind: str, _parents: object) -> bool:
    return not (kind == "table" and name in INDEX_TABLES)


def schema_differences(connection: Connection) -> list[object]:
    options = {"include_name": _not_the_search_index}
    context = MigrationContext.configure(connection, opts=options)
    return list(compare_metadata(context, Base.metadata))

"""Alembic environment: run only by `core.store.migrate`, on the store's shared connection."""

from __future__ import annotations

from alembic import context

from core.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "run migrations through core.store.migrate (agentmail serve does it on start)"
    )

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()

"""Schema migrations (Alembic), run on start-up on the store's own connection."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from core.store.engine import Store

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "head")


async def migrate(store: Store) -> None:
    """Bring the schema to the newest revision; a no-op when it is there already."""
    await store.run_on_connection(_upgrade)

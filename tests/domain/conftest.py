"""The domain tier: core's rules against a store opened in this process, on SQLite
and PostgreSQL, with no gateway, socket or HTTP client in between.

A test here calls the functions the transports call (api/routes, smtp_in, imap_view)
through `tests/domain/world.py`; what only a socket shows (status codes, protocol
replies, authentication, limits, crash safety) stays in tests/integration.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.identity.security import set_bcrypt_rounds
from core.store.engine import Store, database_url
from tests.domain.world import World
from tests.support import databases


@pytest.fixture
async def store(backend: str, tmp_path: Path) -> AsyncIterator[Store]:
    set_bcrypt_rounds(4)  # as the integration gateway does: hashing is not under test
    postgres = None
    if backend == "sqlite":
        url = await databases.create_sqlite_database(tmp_path / "agentmail.db")
    else:
        postgres = await databases.create_postgres_database()
        url = database_url(postgres, Path())
    opened = Store(url)
    try:
        yield opened
    finally:
        await opened.close()
        if postgres is not None:
            await databases.release_postgres_database(postgres)


@pytest.fixture
def world(store: Store) -> World:
    return World(store)

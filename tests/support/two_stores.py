"""A SQLite store and a PostgreSQL store, in process (no gateway), migrated, with the
same accounts: humans `ana` and `bo`, the agent `builder` with one workspace (or none
at all, for what a new store does first)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy.orm import Session

from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.store.engine import Store, database_url
from core.store.models import Agent
from tests.support import databases

Stores = tuple[Store, Store]


@asynccontextmanager
async def two_stores(tmp_path: Path, *, accounts: bool = True) -> AsyncIterator[Stores]:
    set_bcrypt_rounds(4)
    url = await databases.create_postgres_database()
    sqlite = await databases.create_sqlite_database(tmp_path / "agentmail.db")
    both = (Store(sqlite), Store(database_url(url, Path())))
    try:
        for store in both:
            if not accounts:
                continue
            for name in ("ana", "bo"):
                await create_user(store, name, "password123")

            def agent(session: Session) -> None:
                session.add(Agent(name="builder", workspaces=[{"name": "ws", "path": "/srv/ws"}]))

            await store.write(agent)
        yield both
    finally:
        for store in both:
            await store.close()
        await databases.release_postgres_database(url)

"""A PostgreSQL test database handed to the next test is as good as a new copy of the
template, and one that is not (a changed schema, a session still connected) is dropped
(tests/support/emptied_databases.py)."""

from __future__ import annotations

import asyncpg
from sqlalchemy.engine import make_url

from tests.support import databases, emptied_databases


def _name(url: str) -> str:
    name = make_url(url).database
    assert name is not None
    return name


async def _exists(name: str) -> bool:
    conn = await asyncpg.connect(databases.ADMIN_URL)
    try:
        return bool(await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await conn.close()


async def _rows_and_sequences(url: str) -> tuple[int, list[int], str]:
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        rows = 0
        for (table,) in tables:
            if table != "alembic_version":
                rows += await conn.fetchval(f'SELECT count(*) FROM "{table}"')
        sequences = await conn.fetch(
            "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
        )
        first = [await conn.fetchval("SELECT nextval($1)", s) for (s,) in sequences]
        return rows, first, await emptied_databases.fingerprint(conn)
    finally:
        await conn.close()


async def test_a_used_database_comes_back_empty_with_its_sequences_restarted() -> None:
    url = await databases.create_postgres_database()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "INSERT INTO users (id, name, password_hash, is_admin, created_at)"
            " VALUES ('u1', 'ann', 'x', false, now())"
        )
        for (sequence,) in await conn.fetch("SELECT sequencename FROM pg_sequences"):
            await conn.fetchval("SELECT setval($1, 41)", sequence)
    finally:
        await conn.close()
    fresh = await databases.create_postgres_database()
    await databases.release_postgres_database(url)

    again = await databases.create_postgres_database()
    try:
        assert again == url
        rows, first_ids, fingerprint = await _rows_and_sequences(again)
        new_rows, _, new_fingerprint = await _rows_and_sequences(fresh)
        assert rows == new_rows == 2  # no row of the test's; the two the migrations seed
        assert first_ids and set(first_ids) == {1}
        assert fingerprint == new_fingerprint
    finally:
        await databases.release_postgres_database(again)
        await databases.release_postgres_database(fresh)


async def test_a_database_whose_schema_changed_is_dropped() -> None:
    url = await databases.create_postgres_database()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("ALTER TABLE users ADD COLUMN nickname text")
    finally:
        await conn.close()
    await databases.release_postgres_database(url)
    assert not await _exists(_name(url))


async def test_a_database_someone_is_still_connected_to_is_dropped() -> None:
    url = await databases.create_postgres_database()
    lingering = await asyncpg.connect(url)
    try:
        await databases.release_postgres_database(url)
    finally:
        await lingering.close()
    assert not await _exists(_name(url))

"""Fresh databases for each test: a SQLite file, or a PostgreSQL database from a template.

PostgreSQL is the machine's server (AGENTMAIL_TEST_POSTGRES, default
postgresql://postgres@127.0.0.1:5432/test). The schema is migrated once into a
template database per test run; each test gets a copy (CREATE DATABASE … TEMPLATE),
or a database an earlier test of the same process finished with, emptied
(tests/support/emptied_databases.py).
SQLite alike: one file migrated once a process, copied for each test. A migration
from nothing is tested on its own (tests/integration/test_migrations.py, the CLI's
and the wheel's first start).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from core.store.engine import Store, database_url
from core.store.migrate import migrate
from tests.support import emptied_databases

ADMIN_URL = os.environ.get("AGENTMAIL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
_RUN = uuid.uuid4().hex[:8]
TEMPLATE = f"agentmail_tmpl_{_RUN}"
_template_ready: asyncio.Lock | None = None
_template_done = False
_template_fingerprint = ""
_emptied: list[str] = []  # URLs of this process's databases that are empty again
_sqlite_template: Path | None = None


def _url_for(database: str) -> str:
    return make_url(ADMIN_URL).set(database=database).render_as_string(hide_password=False)


async def _admin(database: str | None = None) -> asyncpg.Connection:
    """A connection as the administrator, to its own database or to `database`."""
    url = make_url(ADMIN_URL)
    return await asyncpg.connect(
        host=url.host,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        database=database or url.database,
    )


async def _ensure_template() -> None:
    global _template_done, _template_fingerprint
    if _template_done:
        return
    conn = await _admin()
    try:
        await conn.execute(f'CREATE DATABASE "{TEMPLATE}"')
    finally:
        await conn.close()
    store = Store(database_url(_url_for(TEMPLATE), Path()))
    try:
        await migrate(store)
    finally:
        await store.close()
    conn = await _admin(TEMPLATE)
    try:
        _template_fingerprint = await emptied_databases.fingerprint(conn)
    finally:
        await conn.close()
    _template_done = True


async def create_postgres_database() -> str:
    """A new migrated database; returns its DATABASE_URL."""
    await _ensure_template()
    if _emptied:
        return _emptied.pop()
    name = f"agentmail_t_{uuid.uuid4().hex[:12]}"
    conn = await _admin()
    try:
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"')
    finally:
        await conn.close()
    return _url_for(name)


async def create_sqlite_database(path: Path) -> str:
    """A migrated SQLite database at `path` (a copy of this process's template); its URL."""
    global _sqlite_template
    if _sqlite_template is None:
        folder = Path(tempfile.mkdtemp(prefix="agentmail-sqlite-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = folder / "agentmail.db"
        store = Store(database_url("", template))
        try:
            await migrate(store)
        finally:
            await store.close()  # the last connection's close folds the WAL into the file
        _sqlite_template = template
    shutil.copyfile(_sqlite_template, path)
    return database_url("", path)


async def create_empty_postgres_database() -> str:
    """A new database with no tables at all (a restore's target); returns its URL."""
    name = f"agentmail_t_{uuid.uuid4().hex[:12]}"
    conn = await _admin()
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return _url_for(name)


async def release_postgres_database(database_url: str) -> None:
    """The test is done with the database: empty it for the next test of this process
    when that is safe (a database migrated as the template was), else drop it."""
    name = make_url(database_url).database
    assert name is not None
    if _template_done:
        try:
            conn = await _admin(name)
        except (OSError, asyncpg.PostgresError):
            pass  # dropped already, say: dropping again below is harmless
        else:
            try:
                reusable = await emptied_databases.emptied(conn, name, _template_fingerprint)
            except asyncpg.PostgresError:
                reusable = False  # a schema the fingerprint cannot even read
            finally:
                await conn.close()
            if reusable:
                _emptied.append(database_url)
                return
    await _drop(name)


async def _drop(name: str) -> None:
    conn = await _admin()
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def drop_this_process_databases() -> None:
    """At the end of the run: the template and the emptied databases kept for reuse."""
    if not _template_done:
        return
    while _emptied:
        await _drop(str(make_url(_emptied.pop()).database))
    await _drop(TEMPLATE)

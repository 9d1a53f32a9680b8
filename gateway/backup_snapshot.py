"""The database half of a backup: one consistent copy of the rows, and the sha256 of
every attachment those very rows name (gateway/backup.py says why that order).

SQLite: a copy made with SQLite's online backup API (a consistent snapshot while
the gateway goes on writing); the names are read from the copy itself.
PostgreSQL: a read-only REPEATABLE READ transaction exports its snapshot, the names
are read in it and `pg_dump --snapshot` dumps that same snapshot, so the dump holds
exactly the rows the names come from, whatever commits or is deleted meanwhile.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import Attachment

__all__ = [
    "PG_MEMBER",
    "SQLITE_MEMBER",
    "BackupError",
    "Snapshot",
    "libpq",
    "run_tool",
    "still_named",
    "take",
]

SQLITE_MEMBER = "database.sqlite"
PG_MEMBER = "database.pgdump"
_IN_CHUNK = 500  # names per `IN (…)` when asking the live database


class BackupError(Exception):
    """Something the operator must fix; the message says what."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    kind: str  # "sqlite" or "postgresql"
    path: Path  # the copy (SQLITE_MEMBER) or the dump (PG_MEMBER)
    named: frozenset[str]  # the sha256 of every attachment row in it


def libpq(url: str) -> str:
    """The URL as pg_dump, pg_restore and asyncpg take it (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def run_tool(command: list[str]) -> None:
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except FileNotFoundError as error:
        raise BackupError(f"{command[0]} not found: install the PostgreSQL client") from error
    except subprocess.CalledProcessError as error:
        raise BackupError(f"{command[0]} failed: {error.stderr.strip()}") from error


def take(url: str, work: Path) -> Snapshot:
    """Copy the database into `work`, with the attachments its rows name."""
    if make_url(url).get_backend_name() == "sqlite":
        return _sqlite(url, work / SQLITE_MEMBER)
    return asyncio.run(_postgres(url, work / PG_MEMBER))


def _sqlite(url: str, target: Path) -> Snapshot:
    source = sqlite3.connect(make_url(url).database or "")
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)  # the online backup API: a consistent copy, writers go on
    finally:
        copy.close()
        source.close()
    engine = create_engine(f"sqlite:///{target}")
    try:
        with engine.connect() as connection:
            named = frozenset(connection.scalars(select(Attachment.sha256).distinct()))
    finally:
        engine.dispose()
    return Snapshot("sqlite", target, named)


async def _postgres(url: str, target: Path) -> Snapshot:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as opened:
            connection = await opened.execution_options(isolation_level="REPEATABLE READ")
            async with connection.begin():
                exported = (await connection.execute(text("SELECT pg_export_snapshot()"))).scalar()
                named = frozenset(await connection.scalars(select(Attachment.sha256).distinct()))
                # The exported snapshot lives as long as this transaction: pg_dump takes it up.
                dump = [
                    "pg_dump", "--format=custom", "--no-owner", f"--snapshot={exported}",
                    f"--file={target}", libpq(url),
                ]  # fmt: skip
                await asyncio.to_thread(run_tool, dump)
    finally:
        await engine.dispose()
    return Snapshot("postgresql", target, named)


def still_named(url: str, shas: Iterable[str]) -> set[str]:
    """Those of `shas` some attachment row of the live database names now."""
    wanted = sorted(shas)

    async def read() -> set[str]:
        store = Store(url)
        try:
            found: set[str] = set()
            for start in range(0, len(wanted), _IN_CHUNK):
                chunk = wanted[start : start + _IN_CHUNK]

                def run(session: Session, chunk: list[str] = chunk) -> set[str]:
                    query = select(Attachment.sha256).where(Attachment.sha256.in_(chunk))
                    return set(session.scalars(query))

                found |= await store.read(run)
            return found
        finally:
            await store.close()

    return asyncio.run(read()) if wanted else set()

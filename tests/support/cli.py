"""The `agentmail` command run in-process (typer's runner) from an async test.

The command runs its own event loop (`asyncio.run`), so it runs in a worker
thread; the test's loop stays free to serve a gateway meanwhile.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from core.store.engine import Store, database_url
from gateway.cli import app

_SUMMARY_LINE = re.compile(
    r"^\s*(read|imported|would be imported \(dry run\)|skipped|failed)\s+(\d+)\s*(.*?)\s*$"
)


async def agentmail(
    *args: str,
    db: str,
    data_dir: Path,
    env: Mapping[str, str | None] | None = None,
    stdin: str = "",
) -> Result:
    runner = CliRunner()
    full = [*args, "--data-dir", str(data_dir), "--database-url", db]
    environment = {"COLUMNS": "200", "AGENTMAIL_BCRYPT_ROUNDS": "4", **(env or {})}
    return await asyncio.to_thread(runner.invoke, app, full, input=stdin, env=environment)


async def created(db: str, data_dir: Path) -> None:
    """A new database made the one way a command makes one, `agentmail migrate` (the
    others refuse a SQLite file that does not exist)."""
    result = await agentmail("migrate", db=db, data_dir=data_dir)
    assert result.exit_code == 0, result.output


def summary(output: str) -> dict[str, int]:
    """The summary table of `agentmail import`: {"read": n, "imported": n,
    "skipped: <why>": n, "failed: <why>": n}."""
    found: dict[str, int] = {}
    for line in output.splitlines():
        match = _SUMMARY_LINE.match(line)
        if match is None:
            continue
        what, count, why = match.groups()
        key = f"{what}: {why}" if why else what
        found[key] = found.get(key, 0) + int(count)
    return found


def open_store(url: str) -> Store:
    """A store of our own on a test database (SQLite file or PostgreSQL)."""
    return Store(database_url(url, Path("unused.db")))

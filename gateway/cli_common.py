"""What every `agentmail` command shares: the consoles, settings from flags, one store per job.

gateway/cli.py (serve, user, key) and gateway/cli_archive.py (import, export) both
import it, so neither imports the other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from core.errors import DomainError
from core.identity.security import set_bcrypt_rounds
from core.settings import Settings
from core.store.engine import Store, database_url
from core.store.migrate import migrate

# Never hard-wrapped: an error is one line in a log, whatever width the terminal (or
# none, under a service manager or a test worker) reports.
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
T = TypeVar("T")


def settings_from(**overrides: Any) -> Settings:
    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def with_store(settings: Settings, job: Callable[[Store], Awaitable[T]]) -> T:
    """Open the store (migrating it), run one job, close it; domain errors end with exit 1."""

    async def run() -> T:
        set_bcrypt_rounds(settings.bcrypt_rounds)
        if not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        store = Store(database_url(settings.database_url, settings.sqlite_path))
        try:
            await migrate(store)
            return await job(store)
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except DomainError as error:
        err.print(f"[red]error:[/red] {error.message}")
        raise typer.Exit(1) from error


DataDir = Annotated[Path | None, typer.Option(help="Data directory (AGENTMAIL_DATA_DIR).")]
DatabaseUrl = Annotated[str | None, typer.Option(help="postgresql://… (DATABASE_URL).")]

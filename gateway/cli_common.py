"""What every `agentmail` command shares: the consoles, settings from flags, one store per job.

gateway/cli.py (serve, user, key) and gateway/cli_archive.py (import, export) both
import it, so neither imports the other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

if TYPE_CHECKING:
    from core.settings import Settings
    from core.store.engine import Store

# The store, the settings and SQLAlchemy are imported where a command uses them:
# `agentmail --version` and `agentmail mcp` load none of them (tests/integration/test_cli.py).

# Never hard-wrapped: an error is one line in a log, whatever width the terminal (or
# none, under a service manager or a test worker) reports.
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
T = TypeVar("T")


def settings_from(**overrides: Any) -> Settings:
    from core.settings import Settings

    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def missing_database(settings: Settings) -> Path | None:
    """The SQLite file the settings name, when it does not exist (PostgreSQL: None).

    Nothing reads an env file by itself: a command run without the service's settings
    (docs/deploy.md) sees the default `./data` of wherever it was started."""
    from sqlalchemy.engine import make_url

    from core.store.engine import database_url

    url = make_url(database_url(settings.database_url, settings.sqlite_path))
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    path = Path(url.database).absolute()
    return None if path.exists() else path


def require_database(settings: Settings) -> None:
    """Exit 1, saying why and what to do, when the SQLite database does not exist: a
    command that reads or adds to the gateway's data never makes a new, empty one."""
    path = missing_database(settings)
    if path is None:
        return
    err.print(
        f"[red]error:[/red] no database at {path}. Run the command with the gateway's "
        "settings (AGENTMAIL_DATA_DIR or DATABASE_URL; for the service: set -a; "
        ". /etc/agentmail/gateway.env), or create a new one with `agentmail migrate`.",
        highlight=False,
    )
    raise typer.Exit(1)


def with_store(
    settings: Settings, job: Callable[[Store], Awaitable[T]], *, create: bool = False
) -> T:
    """Open the store (migrating it), run one job, close it; domain errors end with exit 1.

    Only `create` (`agentmail migrate`) makes a SQLite database that does not exist."""
    from core.errors import DomainError
    from core.identity.security import set_bcrypt_rounds
    from core.store.engine import Store, database_url
    from core.store.migrate import migrate

    if not create:
        require_database(settings)

    async def run() -> T:
        set_bcrypt_rounds(settings.bcrypt_rounds)
        if create and not settings.database_url:
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

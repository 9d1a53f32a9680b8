"""`agentmail backup`, `restore` and `doctor`: the operator's commands (docs/deploy.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gateway.cli_common import (
    DatabaseUrl,
    DataDir,
    console,
    err,
    require_database,
    settings_from,
)

# Each command imports its module where it runs: the other commands pay for none of them.


def backup_command(
    archive: Annotated[Path, typer.Argument(help="The archive to write (a new .tar file).")],
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Back up the database and the attachments into one archive, while the gateway runs."""
    from gateway.backup import BackupError, backup

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    require_database(settings)
    try:
        summary = backup(settings, archive)
    except BackupError as error:
        err.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    console.print(
        f"backed up the {summary.database} database and {summary.files} attachment files "
        f"to {archive} ({summary.bytes} bytes)"
    )
    if summary.missing:
        err.print(
            f"[yellow]warning:[/yellow] {len(summary.missing)} attachment files named by the "
            f"database were not on disk: {', '.join(summary.missing[:5])}"
        )
        raise typer.Exit(1)


def restore_command(
    archive: Annotated[Path, typer.Argument(help="An archive made by `agentmail backup`.")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace a database and data dir that hold data.")
    ] = False,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Restore a backup into an empty data dir (and database); the gateway must be stopped."""
    from gateway.backup import BackupError
    from gateway.restore import restore

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    try:
        summary = restore(settings, archive, force=force)
    except (BackupError, OSError) as error:
        err.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    console.print(
        f"restored the {summary.database} database and {summary.files} attachment files; "
        "start the gateway (it migrates an older backup's schema)"
    )


_SHOWN = {"ok": "[green]ok  [/]", "warn": "[yellow]warn[/]", "fail": "[red]fail[/]"}


def doctor_command(data_dir: DataDir = None, database_url: DatabaseUrl = None) -> None:
    """Check settings, ports, database, migrations, disk, certificate and domain; exit 1
    on any fail. Run it with the service's environment (see docs/deploy.md)."""
    from pydantic import ValidationError

    from gateway.doctor import Finding, diagnose

    try:
        settings = settings_from(data_dir=data_dir, database_url=database_url)
    except ValidationError as error:
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"])
            console.print(f"{_SHOWN['fail']}  settings      {where}: {problem['msg']}")
        raise typer.Exit(1) from error
    findings = [Finding("ok", "settings", f"read; domain {settings.domain}"), *diagnose(settings)]
    for finding in findings:
        todo = f"  → {finding.todo}" if finding.todo else ""
        console.print(f"{_SHOWN[finding.status]}  {finding.check:<12}  {finding.found}{todo}")
    if any(finding.status == "fail" for finding in findings):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("backup")(backup_command)
    app.command("restore")(restore_command)
    app.command("doctor")(doctor_command)

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
    """Back up the database and the attachments it names (from the data dir or the object
    store) into one archive, while the gateway runs."""
    from core.errors import StorageUnavailable
    from gateway.backup import BackupError, backup

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    require_database(settings)
    try:
        summary = backup(settings, archive, progress=err.print)
    except (BackupError, StorageUnavailable) as error:
        err.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    console.print(
        f"backed up the {summary.database} database and {summary.files} attachments "
        f"to {archive} ({summary.bytes} bytes)"
    )
    if summary.collected:
        console.print(
            f"{summary.collected} unsent uploads were collected during the backup: their "
            "rows are in the archive without content, and the restored gateway collects them"
        )
    if summary.missing:
        err.print(
            f"[red]error:[/red] {len(summary.missing)} attachments named by the database are "
            f"missing from the attachment store: {', '.join(summary.missing[:5])}; the "
            "archive holds everything else"
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
    """Restore a backup into an empty database and attachment store (the data dir or the
    object store the settings name); the gateway must be stopped."""
    from core.errors import StorageUnavailable
    from gateway.backup import BackupError
    from gateway.restore import restore

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    try:
        summary = restore(settings, archive, force=force, progress=err.print)
    except (BackupError, StorageUnavailable, OSError) as error:
        err.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    console.print(
        f"restored the {summary.database} database and {summary.files} attachments; "
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

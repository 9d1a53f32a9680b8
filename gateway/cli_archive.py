"""`agentmail import` and `agentmail export`: options and progress; the work is in core/.

gateway/cli.py registers them on the `agentmail` app (`register`).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from gateway.cli_common import DatabaseUrl, DataDir, console, err, settings_from, with_store

if TYPE_CHECKING:
    from core.archive.exporting import ExportFormat
    from core.archive.importing import ImportReport
    from core.archive.sources import Source
    from core.store.engine import Store

# core's archive and store are imported by the commands that use them: the other
# commands (`--version`, `mcp`) load none of them.

PASSWORD_ENV = "AGENTMAIL_IMPORT_PASSWORD"
SHOWN_FAILURES = 20


class RateColumn(ProgressColumn):
    """Messages per second so far."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} msg/s" if speed else "- msg/s", style="progress.data.speed")


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        console=err,
    )


def _open_source(sources: list[str], insecure: bool, cafile: Path | None) -> Source:
    from core.archive.imap_source import ImapSource, parse_imap_url
    from core.archive.sources import open_path_source

    remote = [s for s in sources if "://" in s]
    if not remote:
        try:
            return open_path_source([Path(s) for s in sources])
        except (OSError, ValueError) as error:
            err.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from error
    if len(sources) != 1:
        err.print("[red]error:[/red] an IMAP mailbox is imported on its own")
        raise typer.Exit(2)
    try:
        target = parse_imap_url(sources[0])
    except ValueError as error:
        err.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        password = typer.prompt(f"IMAP password for {target.user}", hide_input=True)
    return ImapSource(target, password, insecure=insecure, cafile=cafile)


def _summary(report: ImportReport) -> None:
    would = "would be imported (dry run)" if report.dry_run else "imported"
    table = Table("", "messages", "why", show_header=False, box=None)
    table.add_row("[bold]read[/]", str(report.total), "")
    table.add_row(f"[green]{would}[/]", str(report.imported), "")
    for why, count in sorted(report.skipped.items()):
        table.add_row("[yellow]skipped[/]", str(count), why)
    for why, count in sorted(Counter(f.why for f in report.failed).items()):
        table.add_row("[red]failed[/]", str(count), why)
    console.print(table)
    for failure in report.failed[:SHOWN_FAILURES]:
        console.print(f"  [red]failed[/] {failure.where}: {failure.why}")
    if len(report.failed) > SHOWN_FAILURES:
        console.print(f"  … and {len(report.failed) - SHOWN_FAILURES} more failures")


def import_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            help="An mbox file, a Maildir folder, .eml files or directories of them, "
            "or imaps://user@host[:port]/MAILBOX (password from "
            f"{PASSWORD_ENV}, else asked)."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Read, check and write, then roll back.")
    ] = False,
    insecure: Annotated[
        bool, typer.Option("--insecure", help="IMAP: do not verify the server certificate.")
    ] = False,
    cafile: Annotated[
        Path | None, typer.Option(help="IMAP: trust this CA bundle (PEM) for the server.")
    ] = None,
    domain: Annotated[str | None, typer.Option(help="Mail domain (AGENTMAIL_DOMAIN).")] = None,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Import mail with its threads; running it again adds nothing (docs/import-export.md)."""
    from core.archive.importing import import_messages
    from core.store.blob_choice import open_blobs

    settings = settings_from(domain=domain, data_dir=data_dir, database_url=database_url)
    source = _open_source(sources, insecure, cafile)

    async def job(store: Store) -> ImportReport:
        tasks: dict[str, TaskID] = {}
        with _progress() as bar:

            def advance(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = bar.add_task("scanning" if phase == "scan" else "importing")
                bar.update(tasks[phase], completed=done, total=total)

            try:
                return await import_messages(
                    store,
                    open_blobs(settings),
                    settings.domain,
                    source,
                    max_attachment_bytes=settings.max_attachment_bytes,
                    dry_run=dry_run,
                    progress=advance,
                )
            finally:
                await source.close()

    try:
        report = with_store(settings, job)
    except (TimeoutError, OSError) as error:
        err.print(f"[red]error:[/red] cannot read the source: {error}")
        raise typer.Exit(1) from error
    _summary(report)


def export_command(
    target: Annotated[Path, typer.Argument(help="The mbox file (new) or Maildir folder.")],
    user: Annotated[str | None, typer.Option(help="Export this user's mailbox.")] = None,
    session: Annotated[
        str | None, typer.Option(help="Export this conversation (id or alias).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="mbox or maildir.")] = "mbox",
    domain: Annotated[str | None, typer.Option(help="Mail domain (AGENTMAIL_DOMAIN).")] = None,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Write a user's mailbox or one conversation as mbox or Maildir, oldest first."""
    from core.archive.exporting import export_mail
    from core.store.blob_choice import open_blobs

    if (user is None) == (session is None) or fmt not in ("mbox", "maildir"):
        err.print("[red]error:[/red] give --user or --session; --format is mbox or maildir")
        raise typer.Exit(2)
    if fmt == "mbox" and target.exists():
        err.print(f"[red]error:[/red] {target} exists: an export never overwrites a file")
        raise typer.Exit(2)
    chosen: ExportFormat = "mbox" if fmt == "mbox" else "maildir"
    settings = settings_from(domain=domain, data_dir=data_dir, database_url=database_url)

    async def job(store: Store) -> int:
        with _progress() as bar:
            task = bar.add_task("exporting")
            return await export_mail(
                store,
                open_blobs(settings),
                settings.domain,
                target,
                user=user,
                conversation=session,
                fmt=chosen,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )

    count = with_store(settings, job)
    console.print(f"exported {count} messages to {target} ({fmt})")


def register(app: typer.Typer) -> None:
    """Add `import` and `export` to the `agentmail` app."""
    app.command("import")(import_command)
    app.command("export")(export_command)

"""`agentmail serve`: the gateway in one process, or (`--workers N`, PostgreSQL) a
supervisor and N worker processes on the same listening sockets (gateway/workers.py).

gateway/cli.py registers it on the `agentmail` app (`register`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer
from rich.text import Text

from gateway.cli_common import DatabaseUrl, DataDir, console, err, settings_from
from gateway.memory import return_big_buffers

if TYPE_CHECKING:
    from core.settings import Settings

ADMIN_PASSWORD_FILE = "admin-password.txt"
log = logging.getLogger("agentmail")


class Served(Protocol):
    """What the banner tells: a running `Gateway`, or a group of workers."""

    @property
    def http_url(self) -> str: ...
    @property
    def smtp_port(self) -> int: ...
    @property
    def smtps_port(self) -> int | None: ...
    @property
    def imap_port(self) -> int: ...
    @property
    def imaps_port(self) -> int | None: ...
    @property
    def generated_admin_password(self) -> str | None: ...
    @property
    def starttls(self) -> bool: ...


@dataclass
class Group:
    """The listeners a supervisor bound for its workers."""

    http_url: str
    smtp_port: int
    smtps_port: int | None
    imap_port: int
    imaps_port: int | None
    generated_admin_password: str | None
    starttls: bool


def save_admin_password(data_dir: Path, password: str) -> Path:
    """The generated first admin password in a file only its owner can read (0600)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = (data_dir / ADMIN_PASSWORD_FILE).resolve()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # a file left from before keeps its own mode otherwise
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(password + "\n")
    return path


def banner(settings: Settings, served: Served, workers: int = 1) -> None:
    """Where the gateway listens and how to log in: printed for people, or under
    `AGENTMAIL_LOG_FORMAT=json` one log record a line (the first carries the ports as
    fields), so that everything the process writes is JSON."""
    lines = _banner_lines(settings, served, workers)
    if settings.log_format != "json":
        for line in lines:
            console.print(line)
        return
    fields = {
        "http_url": served.http_url,
        "smtp_port": served.smtp_port,
        "smtps_port": served.smtps_port,
        "imap_port": served.imap_port,
        "imaps_port": served.imaps_port,
        "workers": workers,
    }
    for number, line in enumerate(lines):
        extra = {k: v for k, v in fields.items() if v is not None} if number == 0 else None
        log.info(Text.from_markup(line).plain.strip(), extra=extra)


def _banner_lines(settings: Settings, served: Served, workers: int) -> list[str]:
    where = "PostgreSQL" if settings.database_url else f"SQLite at {settings.sqlite_path}"
    group = f" with {workers} worker processes" if workers > 1 else ""
    lines = [f"[bold green]AgentMail[/] is running on {where}{group}"]
    url = served.http_url
    lines.append(f"  web and API   {url}/   (docs: {url}/api/v1/docs)")
    starttls = ", STARTTLS" if served.starttls else ""
    lines.append(
        f"  SMTP          {settings.host}:{served.smtp_port}   (submission, AUTH "
        f"required{starttls})"
    )
    if served.smtps_port is not None:
        lines.append(
            f"  SMTPS         {settings.host}:{served.smtps_port}   (submission over "
            "implicit TLS, AUTH required)"
        )
    lines.append(
        f"  IMAP          {settings.host}:{served.imap_port}   (your mail in any mail "
        f"client{starttls})"
    )
    if served.imaps_port is not None:
        lines.append(
            f"  IMAPS         {settings.host}:{served.imaps_port}   (IMAP over implicit TLS)"
        )
    generated = served.generated_admin_password
    if generated and sys.stdout.isatty() and settings.log_format != "json":
        lines.append(
            f"  log in as     [bold]{settings.admin_user}[/] / "
            f"[bold]{generated}[/]   (shown once: note it now)"
        )
    elif generated:
        # Not a terminal: the output goes to a log (journald, a file) others may read.
        path = save_admin_password(settings.data_dir, generated)
        lines.append(
            f"  log in as     [bold]{settings.admin_user}[/] with the password in {path} "
            "(readable by this user only; delete it once noted)"
        )
    else:
        lines.append(
            f"  log in as     [bold]{settings.admin_user}[/] with ADMIN_PASSWORD, or the "
            "password printed on the first start"
        )
    lines.append("  stop with     Ctrl-C")
    return lines


def _fail(settings: Settings, message: str) -> None:
    """An error that ends `serve`, in the output's format: one line either way."""
    if settings.log_format == "json":
        log.error(message)
    else:
        err.print(f"[red]error:[/red] {message}", markup=True, highlight=False)


def _on_postgresql(settings: Settings) -> bool:
    from sqlalchemy.engine import make_url

    return bool(settings.database_url) and make_url(settings.database_url).get_backend_name() in (
        "postgresql",
        "postgres",
    )


def _env_name(field: str) -> str:
    from core.settings import Settings

    alias = Settings.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else f"AGENTMAIL_{field.upper()}"


def _serve_one(settings: Settings) -> None:
    from gateway.process import run_until_signalled
    from gateway.server import Gateway

    def started(gateway: Gateway) -> None:
        banner(settings, gateway)

    asyncio.run(run_until_signalled(Gateway(settings), started))


def _serve_group(settings: Settings, overrides: dict[str, Any], count: int) -> int:
    from gateway.sockets import bind_all
    from gateway.tls import server_tls_context
    from gateway.workers import Supervisor, prepare

    tls = server_tls_context(settings)  # a bad certificate is told before anything starts
    generated = asyncio.run(prepare(settings))
    sockets = bind_all(settings)
    host = settings.host if ":" not in settings.host else f"[{settings.host}]"
    port = {name: sock.getsockname()[1] for name, sock in sockets.items()}
    group = Group(
        f"http://{host}:{port['http']}",
        port["smtp"],
        port.get("smtps"),
        port["imap"],
        port.get("imaps"),
        generated,
        tls is not None,
    )
    # The workers read the settings from the environment: the flags go there too.
    env = {**os.environ, **{_env_name(k): str(v) for k, v in overrides.items()}}
    supervisor = Supervisor(count, sockets, env, settings.shutdown_grace_seconds)
    return asyncio.run(supervisor.run(lambda: banner(settings, group, count)))


def _serve_as_worker(settings: Settings, spec: str) -> None:
    from gateway.process import run_until_signalled
    from gateway.server import Gateway
    from gateway.sockets import inherited
    from gateway.workers import follow_supervisor, parse_worker

    sockets, ready, label, supervisor = parse_worker(spec)
    follow_supervisor(supervisor)
    gateway = Gateway(
        settings,
        sockets=inherited(sockets),
        worker=label,
        background_jobs=label.startswith("1/"),  # the periodic jobs: one worker is enough
    )

    def started(_gateway: Gateway) -> None:
        os.write(ready, b"1")  # to the supervisor: this worker serves
        os.close(ready)

    asyncio.run(run_until_signalled(gateway, started))


def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (AGENTMAIL_HOST).")] = None,
    http_port: Annotated[int | None, typer.Option(help="AGENTMAIL_HTTP_PORT.")] = None,
    smtp_port: Annotated[int | None, typer.Option(help="AGENTMAIL_SMTP_PORT.")] = None,
    imap_port: Annotated[int | None, typer.Option(help="AGENTMAIL_IMAP_PORT.")] = None,
    smtps_port: Annotated[
        int | None, typer.Option(help="SMTP over implicit TLS (AGENTMAIL_SMTPS_PORT).")
    ] = None,
    imaps_port: Annotated[
        int | None, typer.Option(help="IMAP over implicit TLS (AGENTMAIL_IMAPS_PORT).")
    ] = None,
    tls_cert: Annotated[
        Path | None, typer.Option(help="PEM certificate (AGENTMAIL_TLS_CERT).")
    ] = None,
    tls_key: Annotated[Path | None, typer.Option(help="PEM key (AGENTMAIL_TLS_KEY).")] = None,
    domain: Annotated[str | None, typer.Option(help="Mail domain (AGENTMAIL_DOMAIN).")] = None,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help="Processes serving together on PostgreSQL (AGENTMAIL_WORKERS); SQLite: 1.",
        ),
    ] = None,
    worker: Annotated[
        str | None, typer.Option(hidden=True, help="Set by the supervisor of --workers.")
    ] = None,
) -> None:
    """Run the gateway: HTTP, SMTP and IMAP on one loop (in each worker process)."""
    # Imported here: the admin commands need neither the web stack nor uvicorn.
    from gateway.logs import configure_logging
    from gateway.sockets import CannotListen
    from gateway.tls import TlsConfigError

    overrides = {
        key: value
        for key, value in {
            "host": host,
            "http_port": http_port,
            "smtp_port": smtp_port,
            "imap_port": imap_port,
            "smtps_port": smtps_port,
            "imaps_port": imaps_port,
            "tls_cert": tls_cert,
            "tls_key": tls_key,
            "domain": domain,
            "data_dir": data_dir,
            "database_url": database_url,
        }.items()
        if value is not None
    }
    settings = settings_from(**overrides, workers=workers)
    configure_logging(settings.log_format, settings.log_level)
    return_big_buffers()  # gateway/memory.py: a big message's memory is not kept
    status = 0
    try:
        if worker is not None:
            _serve_as_worker(settings, worker)
        elif settings.workers > 1 and _on_postgresql(settings):
            status = _serve_group(settings, overrides, settings.workers)
        else:
            if settings.workers > 1:
                log.warning(
                    "%d workers need PostgreSQL (DATABASE_URL=postgresql://…): SQLite has "
                    "one writer, so the gateway runs as one process",
                    settings.workers,
                )
            _serve_one(settings)
    except TlsConfigError as error:
        _fail(settings, str(error))
        raise typer.Exit(2) from error
    except CannotListen as error:
        _fail(settings, str(error))
        raise typer.Exit(1) from error
    # Everything is closed. The interpreter's last garbage collection would now trace the
    # whole heap (seconds on a loaded machine, seen as a slow `systemctl stop`); frozen
    # objects are skipped, and the process frees its memory by exiting anyway.
    gc.freeze()
    if status:
        raise typer.Exit(status)


def register(app: typer.Typer) -> None:
    app.command()(serve)

"""`agentmail`: serve the gateway (gateway/cli_serve.py), and headless admin (users and keys)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

from core.version import VERSION
from gateway import cli_archive, cli_bridge, cli_dkim, cli_mcp, cli_ops, cli_serve
from gateway.cli_common import DatabaseUrl, DataDir, console, err, settings_from, with_store

if TYPE_CHECKING:
    from core.store.engine import Store
    from core.views import IssuedKey

# Each command imports the store and the domain where it runs: `agentmail --version`
# and `agentmail mcp` load no database layer, web stack or IMAP server.

app = typer.Typer(help="AgentMail: a mail gateway for humans and AI agents.", no_args_is_help=True)
user_app = typer.Typer(help="Manage human users.", no_args_is_help=True)
key_app = typer.Typer(help="Issue, list and revoke agent and user keys.", no_args_is_help=True)
app.add_typer(user_app, name="user")
app.add_typer(key_app, name="key")


def _print_version(value: bool) -> None:
    if value:
        console.print(f"agentmail {VERSION}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """AgentMail: a mail gateway for humans and AI agents."""


cli_serve.register(app)  # first: `serve` leads the command list


@app.command()
def migrate(data_dir: DataDir = None, database_url: DatabaseUrl = None) -> None:
    """Bring the database schema to this version's newest migration (serve does it too),
    creating the SQLite database when there is none: the other commands never do.

    install.sh runs it on every upgrade, so a failing migration shows there rather
    than as a service that does not start.
    """
    from core.store.migrate import head_revisions

    settings = settings_from(data_dir=data_dir, database_url=database_url)

    async def nothing(store: Store) -> None:
        return None

    with_store(settings, nothing, create=True)
    console.print(f"schema at {', '.join(sorted(head_revisions()))}")


@user_app.command("add")
def user_add(
    name: str,
    password: Annotated[str, typer.Option(prompt=True, hide_input=True, confirmation_prompt=True)],
    admin: Annotated[bool, typer.Option("--admin", help="Make the user an admin.")] = False,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Create a human user."""
    from core.identity import accounts

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    user = with_store(
        settings, lambda store: accounts.create_user(store, name, password, is_admin=admin)
    )
    console.print(f"created user [bold]{user.name}[/] ({user.name}@{settings.domain})")


@user_app.command("passwd")
def user_passwd(
    name: str,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Set a user's password: prompted on a terminal, else the first line of stdin.

    Every web login of the user ends; their keys stay. Never an argument: command
    lines are visible to other users of the machine (ps) and kept in shell history.
    """
    if sys.stdin.isatty():
        password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    from core.identity import passwords

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    with_store(settings, lambda store: passwords.set_password(store, name, password))
    console.print(f"password of [bold]{name.strip().lower()}[/] changed; its web logins ended")


@key_app.command("issue")
def key_issue(
    lifecycle: Annotated[str, typer.Option(help="permanent | one_time | timed")] = "permanent",
    expires_in: Annotated[str | None, typer.Option(help="For timed keys: 90, 15m, 1h, 7d.")] = None,
    kind: Annotated[str, typer.Option(help="agent (default) or user")] = "agent",
    user: Annotated[str | None, typer.Option(help="The user a user key is for.")] = None,
    label: Annotated[str, typer.Option(help="A note to recognise the key by.")] = "",
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Issue a key and print it once (only its SHA-256 is stored)."""
    from core.identity import accounts, keys

    if kind not in ("agent", "user") or lifecycle not in ("permanent", "one_time", "timed"):
        err.print(
            "[red]error:[/red] --kind is agent or user; --lifecycle permanent, one_time or timed"
        )
        raise typer.Exit(2)
    if kind == "user" and not user:
        err.print("[red]error:[/red] a user key needs --user NAME")
        raise typer.Exit(2)
    settings = settings_from(data_dir=data_dir, database_url=database_url)

    async def issue(store: Store) -> IssuedKey:
        owner = None
        if kind == "user":
            owner = (await accounts.get_user(store, user or "")).name
        return await keys.issue_key(
            store,
            kind=kind,  # type: ignore[arg-type]
            lifecycle=lifecycle,  # type: ignore[arg-type]
            owner=owner,
            label=label,
            expires_in=expires_in,
            created_by="cli",
        )

    issued = with_store(settings, issue)
    console.print(f"key id  {issued.key_id}")
    console.print(f"key     [bold]{issued.key}[/]   (shown once)")
    if issued.expires_at:
        console.print(f"expires {issued.expires_at.isoformat()}")


@key_app.command("list")
def key_list(
    kind: Annotated[str, typer.Option(help="agent or user")] = "agent",
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """List keys (never the keys themselves)."""
    from core.identity import keys

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    chosen: Literal["agent", "user"] = "user" if kind == "user" else "agent"
    found = with_store(settings, lambda store: keys.list_keys(store, kind=chosen))
    rows: list[tuple[str, ...]] = [
        (
            key.key_id,
            key.owner or "-",
            key.lifecycle,
            key.label,
            "yes" if key.active else "no",
            key.expires_at.isoformat(timespec="seconds") if key.expires_at else "-",
            key.created_at.isoformat(timespec="seconds"),
        )
        for key in found
    ]
    _print_keys(rows)


_KEY_COLUMNS = ("key id", "owner", "lifecycle", "label", "active", "expires", "created")


def _print_keys(rows: list[tuple[str, ...]]) -> None:
    """A table when it fits the terminal, else one block a key: never a cut value, since
    an id is what `key revoke` is given (copied from here)."""
    table = Table(*(Column(name, no_wrap=True) for name in _KEY_COLUMNS))
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # a label is text, never markup
    unbounded = console.options.update_width(10_000)
    if Measurement.get(console, unbounded, table).maximum <= console.width:
        console.print(table)
        return
    for key_id, *values in rows:
        console.print(key_id, style="bold", markup=False, highlight=False)
        for name, value in zip(_KEY_COLUMNS[1:], values, strict=True):
            console.print(f"  {name:<10} {value}", markup=False, highlight=False)


@key_app.command("revoke")
def key_revoke(
    key_id: str,
    kind: Annotated[str, typer.Option(help="agent or user")] = "agent",
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Revoke a key: it stops working at once."""
    from core.identity import keys

    settings = settings_from(data_dir=data_dir, database_url=database_url)
    chosen: Literal["agent", "user"] = "user" if kind == "user" else "agent"
    with_store(settings, lambda store: keys.revoke_key(store, key_id, kind=chosen))
    console.print(f"revoked {key_id}")


# `import` and `export` live beside this module and register themselves on `app`.
import gateway.cli_archive  # noqa: E402, F401

cli_archive.register(app)
cli_mcp.register(app)
cli_bridge.register(app)
cli_ops.register(app)
cli_dkim.register(app)

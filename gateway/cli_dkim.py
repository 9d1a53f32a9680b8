"""`agentmail dkim generate|show`: the DKIM key outbound mail is signed with
(docs/external-mail.md). The key is sealed in the database like every secret the
replicas share (core/secrets); the command prints the DNS record to publish."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import typer

from gateway.cli_common import DatabaseUrl, DataDir, console, err, settings_from, with_store

if TYPE_CHECKING:
    from core.relay.dkim_key import DkimKey
    from core.secrets.box import SecretBox
    from core.settings import Settings
    from core.store.engine import Store

dkim_app = typer.Typer(help="The DKIM key outbound mail is signed with.", no_args_is_help=True)


async def _checked_box(store: Store, settings: Settings) -> SecretBox:
    from core.secrets.configured import secret_box
    from core.secrets.stored import check_secret_key

    box = secret_box(settings)
    await check_secret_key(store, box)  # never seal under a key the replicas do not share
    return box


def _print_record(key: DkimKey, domain: str) -> None:
    """The record as a zone file line: an RSA key's text is longer than one TXT string
    may be (255 octets, RFC 1035 §3.3.14), so it is cut into strings a resolver joins."""
    text = key.record()
    strings = " ".join(f'"{text[i : i + 255]}"' for i in range(0, len(text), 255))
    console.print(f"Publish this TXT record at {key.record_name(domain)}:", highlight=False)
    print(f"{key.record_name(domain)}. IN TXT {strings}")
    console.print(f"(its text, for a DNS provider's form: {text})", highlight=False)


@dkim_app.command("generate")
def generate(
    selector: Annotated[
        str, typer.Option(help="The selector: the record's name is SELECTOR._domainkey.DOMAIN.")
    ] = "agentmail",
    algorithm: Annotated[
        str, typer.Option(help="rsa (RSA-2048, every receiver verifies it) or ed25519.")
    ] = "rsa",
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace the key there is (a key rotation).")
    ] = False,
    data_dir: DataDir = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Make the DKIM key, keep it sealed in the database, print the DNS record."""
    from core.address import is_valid_alias
    from core.relay.dkim_key import generate_dkim_key, load_dkim_key, save_dkim_key

    if algorithm not in ("rsa", "ed25519"):
        err.print("[red]error:[/red] --algorithm is rsa or ed25519")
        raise typer.Exit(2)
    if not is_valid_alias(selector.lower()) or "_" in selector:
        err.print("[red]error:[/red] a selector is letters, digits and inner hyphens")
        raise typer.Exit(2)
    chosen: Literal["rsa", "ed25519"] = "ed25519" if algorithm == "ed25519" else "rsa"
    settings = settings_from(data_dir=data_dir, database_url=database_url)

    async def run(store: Store) -> DkimKey | None:
        box = await _checked_box(store, settings)
        if await load_dkim_key(store, box) is not None and not replace:
            return None
        key = generate_dkim_key(selector.lower(), chosen)
        await save_dkim_key(store, box, key)
        return key

    key = with_store(settings, run)
    if key is None:
        err.print(
            "[red]error:[/red] there is a DKIM key already (`agentmail dkim show`);"
            " --replace makes a new one (publish its record before mail is signed with it)"
        )
        raise typer.Exit(1)
    _print_record(key, settings.domain)


@dkim_app.command("show")
def show(data_dir: DataDir = None, database_url: DatabaseUrl = None) -> None:
    """Print the DNS record of the DKIM key there is."""
    from core.relay.dkim_key import load_dkim_key

    settings = settings_from(data_dir=data_dir, database_url=database_url)

    async def run(store: Store) -> DkimKey | None:
        return await load_dkim_key(store, await _checked_box(store, settings))

    key = with_store(settings, run)
    if key is None:
        err.print("[red]error:[/red] no DKIM key yet: `agentmail dkim generate` makes one")
        raise typer.Exit(1)
    _print_record(key, settings.domain)


def register(app: typer.Typer) -> None:
    app.add_typer(dkim_app, name="dkim")

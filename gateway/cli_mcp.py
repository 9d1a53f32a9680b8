"""`agentmail mcp`: the mail tools as an MCP server (bridges/mcp), for any MCP agent.

gateway/cli.py registers it on the `agentmail` app (`register`). Only options and
the environment are read here; the server is bridges/mcp/run.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Annotated

import typer

from gateway.cli_common import err

HELP = """Serve the mail tools over MCP (stdio by default), for any MCP-speaking agent.

\b
Environment:
  AGENTMAIL_URL            the gateway (default http://127.0.0.1:8180)
  AGENTMAIL_AGENT_KEY      the agent key; else the key file
  AGENTMAIL_KEY_DIR        holds the key file agent.key (default ~/.agentmail)
  AGENTMAIL_ENROLMENT_KEY  a one-time key, exchanged for a permanent one
  AGENTMAIL_AGENT_NAME     the agent's name: with --workspace, the agent is
                           registered on start if its key is not bound yet

With no key at all, one is generated into the key file and only its SHA-256 is
logged, for an admin to register. With --http, streamable HTTP on
http://HOST:PORT/mcp; every request must carry the agent key as
`Authorization: Bearer <key>` (401 otherwise). See docs/bridges.md.
"""


def _workspace(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise typer.BadParameter(f"{text!r}: a workspace is NAME=PATH")
    return name, str(Path(path).expanduser().resolve())


def mcp_command(
    workspace: Annotated[
        list[str] | None,
        typer.Option(
            "--workspace",
            help="NAME=PATH, repeatable: the agent's workspaces, registered on start; the "
            "file tools read and write inside them only.",
        ),
    ] = None,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="--http: the address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="--http: the port (0 picks a free one).")] = 8181,
    platform: Annotated[str, typer.Option(help="The platform name registered.")] = "mcp",
) -> None:
    # Imported here: the MCP SDK takes seconds to import, which no other command should pay.
    import httpx

    from bridges.client import GatewayError, load_key
    from bridges.client.client import DEFAULT_URL, URL_ENV
    from bridges.mcp.run import McpConfig, serve
    from bridges.tools.definition import AgentIdentity, ToolError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # One line per HTTP request is noise; the tools log what they did and what was refused.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    workspaces = tuple(_workspace(item) for item in workspace or [])
    name = os.environ.get("AGENTMAIL_AGENT_NAME", "").strip()
    try:
        key = load_key()
    except OSError as error:
        err.print(f"[red]error:[/red] no agent key: {error}", highlight=False)
        raise typer.Exit(2) from error
    config = McpConfig(
        url=os.environ.get(URL_ENV, "").strip() or DEFAULT_URL,
        key=key,
        identity=AgentIdentity(name, workspaces, platform) if name else None,
        http=http,
        host=host,
        port=port,
    )

    def announce(where: str) -> None:
        err.print(f"AgentMail MCP server on {where} (gateway {config.url})", highlight=False)

    try:
        asyncio.run(serve(config, announce))
    except (ToolError, GatewayError, httpx.TransportError, OSError) as error:
        err.print(f"[red]error:[/red] {error}", highlight=False)
        raise typer.Exit(1) from error
    except KeyboardInterrupt:
        pass


def register(app: typer.Typer) -> None:
    """Add `mcp` to the `agentmail` app."""
    app.command("mcp", help=HELP)(mcp_command)

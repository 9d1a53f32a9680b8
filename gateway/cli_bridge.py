"""`agentmail bridge PLATFORM`: run a bridge between the gateway and an agent platform.

gateway/cli.py registers it on the `agentmail` app (`register`). Only options and the
environment are read here; the bridge is bridges/runtime/run.py, the platforms are
bridges/platforms.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from typing import Annotated

import typer

from gateway.cli_common import err

HELP = """Run a bridge: the agent's mail reaches PLATFORM, its answers come back by mail.

\b
Environment:
  AGENTMAIL_URL            the gateway (http://127.0.0.1:8180)
  AGENTMAIL_AGENT_KEY      the agent key; else the key file
  AGENTMAIL_KEY_DIR        holds the key file agent.key (~/.agentmail)
  AGENTMAIL_ENROLMENT_KEY  a one-time key, exchanged for a permanent one
  AGENTMAIL_AGENT_NAME     the agent's name when --name is not given
  AGENTMAIL_BRIDGE_DATA_DIR
                  ledger, open prompts, grants (~/.agentmail/bridge)
  AGENTMAIL_BRIDGE_WORKERS
                  conversations worked on at once (3)
  AGENTMAIL_BRIDGE_TURN_TIMEOUT
                  seconds before a stuck turn is stopped (600)

Each platform's own settings are in docs/bridges.md.
"""


def bridge_command(
    platform: Annotated[str, typer.Argument(help="The agent platform: opencode, claude or pi.")],
    workspace: Annotated[
        list[str] | None,
        typer.Option(
            "--workspace",
            help="NAME=PATH, repeatable: the agent's workspaces (registered on start); "
            "mail to NAME@PATH-of-the-agent runs the platform in PATH.",
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="The agent's name (else AGENTMAIL_AGENT_NAME).")
    ] = "",
) -> None:
    from bridges.platforms import PLATFORMS
    from bridges.runtime.run import run_bridge, workspaces_of

    agent = name or os.environ.get("AGENTMAIL_AGENT_NAME", "").strip()
    if platform not in PLATFORMS:
        err.print(
            f"[red]error:[/red] no platform {platform!r}: one of {', '.join(sorted(PLATFORMS))}"
        )
        raise typer.Exit(2)
    if not agent:
        err.print("[red]error:[/red] the agent's name: --name NAME or AGENTMAIL_AGENT_NAME")
        raise typer.Exit(2)
    if not workspace:
        err.print("[red]error:[/red] at least one --workspace NAME=PATH")
        raise typer.Exit(2)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_bridge(platform, agent, workspaces_of(workspace), os.environ))


def register(app: typer.Typer) -> None:
    """Add `bridge` to the `agentmail` app."""
    app.command("bridge", help=HELP)(bridge_command)

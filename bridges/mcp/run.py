"""`agentmail mcp`: connect to the gateway, register if need be, serve the tools.

Configuration (docs/bridges.md#mcp-server-agentmail-mcp): the gateway's
`AGENTMAIL_URL`, the key as the client SDK finds it (`AGENTMAIL_AGENT_KEY`, the
key file, an enrolment key), the agent's `AGENTMAIL_AGENT_NAME`; the workspaces
from `--workspace NAME=PATH`. Over stdio nothing but the protocol may reach
stdout: everything else is logged to stderr.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
from mcp.server.stdio import stdio_server

from bridges.client import AgentClient, AgentKey, GatewayError
from bridges.mcp.http_transport import listening_socket, serve_http
from bridges.mcp.server import build_server
from bridges.tools.connection import ensure_connected
from bridges.tools.decisions import DecisionBoard
from bridges.tools.definition import AgentIdentity, ToolContext

log = logging.getLogger("agentmail.mcp")
HEARTBEAT_SECONDS = 30.0


@dataclass(frozen=True)
class McpConfig:
    url: str
    key: AgentKey
    identity: AgentIdentity | None
    http: bool = False
    host: str = "127.0.0.1"
    port: int = 8181

    @property
    def roots(self) -> tuple[Path, ...]:
        """Where file tools may read and write: the workspaces, else the current directory."""
        if self.identity and self.identity.workspaces:
            return tuple(Path(path) for _, path in self.identity.workspaces)
        return (Path.cwd(),)


async def _heartbeats(client: AgentClient) -> None:
    """Keep the agent online while the server runs (three missed beats: offline)."""
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        try:
            await client.heartbeat()
        except (GatewayError, httpx.TransportError) as error:
            log.warning("heartbeat failed: %s", error)


async def _decisions(client: AgentClient, board: DecisionBoard) -> None:
    """Wake `request_permission` as soon as its decision is on the event stream."""
    async for event in client.events():
        if event.type == "permission_decision" and "mail_id" in event.data:
            board.seen(str(event.data["mail_id"]))


@asynccontextmanager
async def connected(config: McpConfig) -> AsyncIterator[ToolContext]:
    async with AgentClient(config.url, config.key) as client:
        context = ToolContext(client, config.roots, config.identity)
        status = await ensure_connected(context)
        log.info("connected to %s: %s unread mail(s) waiting", config.url, status["pending_mails"])
        tasks = [
            asyncio.create_task(_heartbeats(client)),
            asyncio.create_task(_decisions(client, context.decisions)),
        ]
        try:
            yield context
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with suppress(asyncio.CancelledError, GatewayError):
                    await task


async def serve(config: McpConfig, announce: Callable[[str], None]) -> None:
    sock = listening_socket(config.host, config.port) if config.http else None
    async with connected(config) as context:
        server = build_server(context)
        if sock is not None:
            await serve_http(server, sock, lambda: context.client.key.secret, announce)
            return
        announce("stdio")
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

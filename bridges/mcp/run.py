"""`agentmail mcp`: connect to the gateway, register if need be, serve the tools.

Configuration comes from the environment (docs/bridges.md#mcp): the gateway's
`AGENTMAIL_URL`, the key from `AGENTMAIL_AGENT_KEY` or the key file, the agent's
`AGENTMAIL_AGENT_NAME`; the workspaces from `--workspace NAME=PATH`. Over stdio
nothing but the protocol may reach stdout: everything else is logged to stderr.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from mcp.server.stdio import stdio_server

from bridges.mcp.http_transport import listening_socket, serve_http
from bridges.mcp.server import build_server
from bridges.tools.connection import ensure_connected
from bridges.tools.definition import AgentIdentity, ToolContext
from bridges.tools.gateway_api import GatewayRefusal, GatewayUnreachable
from bridges.tools.http_gateway import HttpGateway

log = logging.getLogger("agentmail.mcp")
HEARTBEAT_SECONDS = 30.0


@dataclass(frozen=True)
class McpConfig:
    url: str
    key: str
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


async def _heartbeats(gateway: HttpGateway) -> None:
    """Keep the agent online while the server runs (three missed beats: offline)."""
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        try:
            await gateway.heartbeat()
        except (GatewayRefusal, GatewayUnreachable) as error:
            log.warning("heartbeat failed: %s", error)


@asynccontextmanager
async def connected(config: McpConfig) -> AsyncIterator[tuple[ToolContext, HttpGateway]]:
    gateway = HttpGateway(config.url, config.key)
    try:
        context = ToolContext(gateway, config.roots, config.identity, gateway_url=config.url)
        status = await ensure_connected(context)
        log.info("connected to %s: %s unread mail(s) waiting", config.url, status["pending_mails"])
        beats = asyncio.create_task(_heartbeats(gateway))
        try:
            yield context, gateway
        finally:
            beats.cancel()
            with suppress(asyncio.CancelledError):
                await beats
    finally:
        await gateway.aclose()


async def serve(config: McpConfig, announce: Callable[[str], None]) -> None:
    sock = listening_socket(config.host, config.port) if config.http else None
    async with connected(config) as (context, gateway):
        server = build_server(context)
        if sock is not None:
            await serve_http(server, sock, lambda: gateway.key, announce)
            return
        announce("stdio")
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

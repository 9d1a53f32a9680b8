"""`agentmail mcp` as a subprocess, reached with the `mcp` SDK's own client over
stdio or streamable HTTP (the transports an MCP agent uses)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

AGENTMAIL = [sys.executable, "-m", "gateway"]
_ANNOUNCED = re.compile(r"AgentMail MCP server on (http://\S+)")


def mcp_env(url: str, key: str, name: str | None = "helper") -> dict[str, str]:
    """Only what the server needs, and the tree under test on PYTHONPATH."""
    env = {
        "AGENTMAIL_URL": url,
        "AGENTMAIL_AGENT_KEY": key,
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
    }
    if name:
        env["AGENTMAIL_AGENT_NAME"] = name
    return env


def workspace_args(workspaces: Sequence[tuple[str, Path]]) -> list[str]:
    return [arg for name, path in workspaces for arg in ("--workspace", f"{name}={path}")]


@asynccontextmanager
async def stdio_client(env: dict[str, str], args: Sequence[str]) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=AGENTMAIL[0], args=[*AGENTMAIL[1:], "mcp", *args], env=env
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


@asynccontextmanager
async def http_server(env: dict[str, str], args: Sequence[str]) -> AsyncIterator[str]:
    """Starts `agentmail mcp --http --port 0` and yields its URL, read from its log."""
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL,
        "mcp",
        "--http",
        "--port",
        "0",
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    drain: asyncio.Task[None] | None = None
    try:
        async with asyncio.timeout(30):
            while (found := _ANNOUNCED.search("".join(lines))) is None:
                line = (await process.stderr.readline()).decode()
                assert line, f"agentmail mcp ended: {''.join(lines)}"
                lines.append(line)
        drain = asyncio.create_task(_drain(process.stderr))
        yield found.group(1)
    finally:
        if process.returncode is None:
            process.terminate()
            await asyncio.wait_for(process.wait(), 20)
        if drain is not None:
            drain.cancel()
            with suppress(asyncio.CancelledError):
                await drain


async def _drain(stream: asyncio.StreamReader) -> None:
    """Keep reading the log, so a full pipe never blocks the server."""
    while await stream.readline():
        pass


@asynccontextmanager
async def http_client(url: str, key: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, read_timeout_seconds=60) as client:
            yield client

"""A private nginx (Debian's `/usr/sbin/nginx` with its stream module) as a TCP proxy in
front of gateway listeners, sending the PROXY protocol header (`proxy_protocol on;`) as
a deployment's load balancer does (docs/deploy.md, "Behind nginx or Caddy");
tests/support/nginx.py is the cluster world's load balancer.

Started in the foreground with a configuration, pid file and error log of its own on
free loopback ports, and stopped at the end; nothing of the machine's nginx is used.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.nginx import STREAM_MODULE, nginx_process
from tests.support.ports import steady_ports


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where nginx forwards, and the address it connects from (None: the kernel's)."""

    port: int
    bind: str | None = None


def _config(root: Path, servers: Mapping[int, Upstream]) -> str:
    blocks = "".join(
        f"""
    server {{
        listen 127.0.0.1:{port};
        proxy_pass 127.0.0.1:{upstream.port};
        proxy_protocol on;
        {f"proxy_bind {upstream.bind};" if upstream.bind else ""}
    }}"""
        for port, upstream in servers.items()
    )
    return f"""load_module {STREAM_MODULE};
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log notice;
events {{ worker_connections 256; }}
stream {{{blocks}
}}
"""


def _prepare(upstreams: list[Upstream]) -> dict[int, Upstream]:
    return dict(zip(steady_ports(len(upstreams)), upstreams, strict=True))


@asynccontextmanager
async def nginx_stream(root: Path, upstreams: list[Upstream]) -> AsyncIterator[list[int]]:
    """nginx proxying a port of its own to each upstream; yields those ports, in order."""
    servers = _prepare(upstreams)
    listening = [("127.0.0.1", port) for port in servers]
    async with nginx_process(root, _config(root, servers), listening):
        yield list(servers)

"""A private nginx (Debian's `/usr/sbin/nginx` with its stream module) as a TCP proxy in
front of gateway listeners, sending the PROXY protocol header (`proxy_protocol on;`) as
a deployment's load balancer does (docs/deploy.md, "Behind nginx or Caddy");
tests/support/nginx.py is the cluster world's load balancer.

Started in the foreground with a configuration, pid file and error log of its own on
free loopback ports, and stopped at the end; nothing of the machine's nginx is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

NGINX = Path("/usr/sbin/nginx")
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")
START_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where nginx forwards, and the address it connects from (None: the kernel's)."""

    port: int
    bind: str | None = None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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


async def _listening(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def _prepare(root: Path, upstreams: list[Upstream]) -> tuple[list[int], Path]:
    root.mkdir(parents=True, exist_ok=True)
    ports = [_free_port() for _ in upstreams]
    conf = root / "nginx.conf"
    conf.write_text(_config(root, dict(zip(ports, upstreams, strict=True))))
    return ports, conf


@asynccontextmanager
async def nginx_stream(root: Path, upstreams: list[Upstream]) -> AsyncIterator[list[int]]:
    """nginx proxying a port of its own to each upstream; yields those ports, in order."""
    ports, conf = _prepare(root, upstreams)
    process = await asyncio.create_subprocess_exec(
        str(NGINX), "-p", str(root), "-c", str(conf), "-e", str(root / "error.log"),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with asyncio.timeout(START_SECONDS):
            for port in ports:
                while not await _listening(port):
                    if process.returncode is not None:
                        raise RuntimeError(
                            f"nginx did not start: {(root / 'error.log').read_text()}"
                        )
                    await asyncio.sleep(0.05)
        yield ports
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)  # nginx's fast shutdown
        async with asyncio.timeout(START_SECONDS):
            await process.wait()

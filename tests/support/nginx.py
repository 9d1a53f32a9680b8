"""Debian's nginx in front of the cluster world's replicas, configured by the test.

HTTP is balanced over the replicas round robin; SMTP and IMAP go through the `stream`
module (Debian ships it as a dynamic module, libnginx-mod-stream). Open-source nginx
has no active health check, so a replica is left out by its failures: a refused or
timed-out connection sends the request to the next replica (`proxy_next_upstream`,
which never sends a request that reached a replica again unless it is idempotent)
and keeps the failed one out for `FAIL_SECONDS` (`max_fails=1`). `/readyz` is passed
through, for whoever probes it; `X-Upstream` names the replica (or replicas, tried
in turn) that answered. The event stream is passed through unbuffered with an
hour's read timeout (the gateway's pings keep it alive); when its replica goes, the
client reconnects through nginx to another one and resumes from its Last-Event-ID.
scripts/ensure-services.sh installs the packages.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

NGINX = Path("/usr/sbin/nginx")
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")
FAIL_SECONDS = 2  # how long a replica that refused a connection is left out
START_SECONDS = 30.0  # a bound on a hang: it starts in a moment


@dataclass(frozen=True, slots=True)
class Backend:
    host: str
    http_port: int
    smtp_port: int
    imap_port: int


@dataclass(frozen=True, slots=True)
class Nginx:
    root: Path
    host: str
    http_port: int
    smtp_port: int
    imap_port: int

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    def error_log(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""


def missing() -> str | None:
    """What this machine lacks to run the nginx of the tests, if anything."""
    if not NGINX.exists() or not STREAM_MODULE.exists():
        return "nginx and libnginx-mod-stream are missing: run scripts/ensure-services.sh"
    return None


def _upstream(name: str, servers: Sequence[str], extra: str = "") -> str:
    lines = [f"server {s} max_fails=1 fail_timeout={FAIL_SECONDS}s;" for s in servers]
    return f"upstream {name} {{\n  " + "\n  ".join(lines) + f"\n  {extra}\n}}"


def configuration(front: Nginx, backends: Sequence[Backend], source: str | None = None) -> str:
    """nginx.conf for `backends` behind `front`'s ports. With `source`, nginx connects
    to the backends from that address and starts each SMTP and IMAP connection with a
    PROXY protocol header (docs/deploy.md's "Scaling out")."""
    bind = f"proxy_bind {source};" if source else ""
    header = "proxy_protocol on;" if source else ""
    http = _upstream("http", [f"{b.host}:{b.http_port}" for b in backends], "keepalive 16;")
    smtp = _upstream("smtp", [f"{b.host}:{b.smtp_port}" for b in backends])
    imap = _upstream("imap", [f"{b.host}:{b.imap_port}" for b in backends])
    temp = "\n".join(
        f"  {kind}_temp_path {front.root / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    proxied = f"""
      proxy_pass http://http;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
      {bind}"""
    return f"""
load_module {STREAM_MODULE};
daemon off;
worker_processes 1;
pid {front.root / "nginx.pid"};
error_log {front.root / "error.log"} warn;
events {{ worker_connections 2048; }}
http {{
  access_log {front.root / "access.log"};
{temp}
  client_max_body_size 64m;
  {http}
  server {{
    listen {front.host}:{front.http_port};
    location / {{{proxied}
      proxy_request_buffering off;
    }}
    location = /api/v1/events/stream {{{proxied}
      proxy_buffering off;
      proxy_read_timeout 1h;
    }}
  }}
}}
stream {{
  {smtp}
  {imap}
  server {{
    listen {front.host}:{front.smtp_port};
    proxy_pass smtp;
    proxy_connect_timeout 2s;
    {bind} {header}
  }}
  server {{
    listen {front.host}:{front.imap_port};
    proxy_pass imap;
    proxy_connect_timeout 2s;
    {bind} {header}
    proxy_timeout 1h;
  }}
}}
"""


async def _listening(host: str, port: int, process: asyncio.subprocess.Process, root: Path) -> None:
    async with asyncio.timeout(START_SECONDS):
        while True:
            if process.returncode is not None:
                log = root / "error.log"
                said = log.read_text() if log.exists() else ""
                raise RuntimeError(f"nginx exited with {process.returncode}: {said[-2000:]}")
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection(host, port)
                writer.close()
                return
            await asyncio.sleep(0.05)


def _written(root: Path, config: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # the workers run as nobody
    conf = root / "nginx.conf"
    conf.write_text(config)
    return conf


@asynccontextmanager
async def nginx_process(
    root: Path, config: str, listening: Sequence[tuple[str, int]]
) -> AsyncIterator[asyncio.subprocess.Process]:
    """nginx in the foreground on `config` (written to `root`) until the block ends, once
    every `(host, port)` of `listening` takes connections; its logs stay in `root`."""
    conf = _written(root, config)
    process = await asyncio.create_subprocess_exec(
        NGINX, "-p", str(root), "-c", str(conf), "-e", str(root / "error.log"),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for host, port in listening:
            await _listening(host, port, process, root)
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)  # nginx's fast shutdown
            try:
                async with asyncio.timeout(15):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


@asynccontextmanager
async def running_nginx(
    front: Nginx, backends: Sequence[Backend], source: str | None = None
) -> AsyncIterator[Nginx]:
    """nginx for `backends` on `front`'s ports until the block ends (from `source`, with
    the PROXY protocol: `configuration`); its configuration and logs stay in `front.root`."""
    # The master binds every listening socket before it starts a worker; a probe of
    # the SMTP or IMAP port would reach for a replica not started yet.
    config = configuration(front, backends, source)
    async with nginx_process(front.root, config, [(front.host, front.http_port)]):
        yield front

"""The baseline of `bench/rest_loop.py`: a hello-world FastAPI app, served as the gateway is.

`python bench/_hello.py --port N` serves `GET /health` and `POST /echo` on
127.0.0.1:N. It is served the way `gateway/server.py` serves the gateway: one
process, `asyncio.run` (the standard library loop: uvicorn installs no loop when
it is embedded with `Server.serve`), the same `uvicorn.Config` options (HTTP
protocol "auto", i.e. httptools when installed), one worker, our own signal
handling, a socket made with `socket.create_server`. One difference, on purpose:
the listening socket gets TCP_NODELAY, as uvicorn's own sockets do (see
`serve`); `--no-nodelay` drops it, to show what its absence costs.

`POST /echo` receives the same ~500-byte JSON body the gateway's
`/me/mail/send` gets, lets FastAPI parse it, and returns a tiny JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
from collections.abc import Iterator
from typing import Annotated, Any

import uvicorn
from fastapi import Body, FastAPI

app = FastAPI(title="hello-world baseline")


@app.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/echo")
async def echo(payload: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    return {"ok": True, "fields": len(payload)}


class _EmbeddedServer(uvicorn.Server):
    """As in gateway/server.py: uvicorn without its own signal handling."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(host: str, port: int, nodelay: bool) -> None:
    sock = socket.create_server((host, port))
    if nodelay:
        # Accepted sockets inherit this. uvicorn's own sockets get TCP_NODELAY from
        # asyncio, but a socket made by socket.create_server (proto 0) does not, and
        # then every response written in two parts (headers, body) waits for the
        # client's delayed ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
        proxy_headers=False,
    )
    server = _EmbeddedServer(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
    try:
        await server.serve(sockets=[sock])
    finally:
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--no-nodelay",
        action="store_true",
        help="leave Nagle's algorithm on, as gateway/server.py's socket does today",
    )
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port, nodelay=not args.no_nodelay))


if __name__ == "__main__":
    main()

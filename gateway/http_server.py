"""The HTTP listener: uvicorn serving the app on a socket the gateway bound, on the
gateway's own loop and without signal handlers of its own."""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
from collections.abc import Awaitable, Callable, Iterator

import uvicorn
from starlette.types import ASGIApp

from core.settings import Settings
from gateway.http_connections import AnswerCutRequests, ConnectionGuard, guarded_protocol

KEEP_ALIVE_SECONDS = 15  # an idle kept-alive HTTP connection (see serve_http)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its own signal handling: the gateway handles signals in one place."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_http(
    app: ASGIApp, sock: socket.socket, settings: Settings
) -> Callable[[], Awaitable[None]]:
    """Serving once this returns; the coroutine function it returns stops it (requests
    in flight finish within the shutdown grace)."""
    proxies = settings.trusted_proxy_networks
    guard = ConnectionGuard(
        settings.http_header_timeout_seconds, settings.http_connections_per_address, proxies
    )
    config = uvicorn.Config(
        AnswerCutRequests(app),  # 503, not 500, to what the grace period's end cuts
        http=guarded_protocol(guard),
        log_level="warning",
        log_config=None,  # uvicorn logs through the gateway's handler (gateway/logs.py)
        access_log=False,
        lifespan="off",
        # SIGTERM: requests in flight finish (SSE streams end at once, with a retry hint).
        timeout_graceful_shutdown=math.ceil(settings.shutdown_grace_seconds),
        # The one place that decides the client's address and scheme: X-Forwarded-For
        # and -Proto count only from AGENTMAIL_TRUSTED_PROXIES (none by default).
        proxy_headers=bool(proxies),
        forwarded_allow_ips=[str(network) for network in proxies],
        backlog=settings.listen_backlog,
        # An idle kept-alive connection is closed after 15 s, not uvicorn's 5: clients
        # drop their own idle connections after 5 s (httpx, Node), and with equal
        # timeouts a request sent on a connection the server is closing that instant
        # is lost (a reset, not an answer). Idle connections still count against
        # AGENTMAIL_HTTP_CONNECTIONS_PER_ADDRESS.
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )
    server = _EmbeddedServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="http")
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("HTTP server stopped during start-up")
        await asyncio.sleep(0.01)

    async def stop() -> None:
        server.should_exit = True
        await task

    return stop

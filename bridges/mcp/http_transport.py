"""The streamable HTTP transport, guarded by the agent key.

Bound to loopback by default: anything that can reach the port and present the
key acts as the agent, so the key is required on every request (`401` with
`WWW-Authenticate: Bearer`, RFC 6750 §3, otherwise), compared in constant time.
On loopback the SDK also checks `Host` and `Origin` against DNS rebinding.
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from mcp.server import Server
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("agentmail.mcp")
PATH = "/mcp"
_REFUSAL = json.dumps(
    {"error": {"code": "unauthorized", "message": "send the agent key as a bearer token"}}
).encode()


class BearerGuard:
    """ASGI middleware: only requests with `Authorization: Bearer <the agent key>` pass."""

    def __init__(self, app: ASGIApp, key: Callable[[], str]) -> None:
        self.app = app
        self.key = key

    def _authorized(self, scope: Scope) -> bool:
        expected = f"Bearer {self.key()}".encode()
        given = dict(scope["headers"]).get(b"authorization", b"")
        return hmac.compare_digest(given, expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="agentmail-mcp"'),
                        (b"content-length", str(len(_REFUSAL)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": _REFUSAL})
            return
        await self.app(scope, receive, send)


def listening_socket(host: str, port: int) -> socket.socket:
    """Bound before the server starts, so a port 0 is known and can be printed."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, reuse_port=False)
    sock.setblocking(False)
    return sock


async def serve_http(
    server: Server[Any],
    sock: socket.socket,
    key: Callable[[], str],
    announce: Callable[[str], None],
) -> None:
    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(host=host, streamable_http_path=PATH)
    config = uvicorn.Config(
        BearerGuard(app, key), log_level="warning", access_log=False, lifespan="on"
    )
    shown = f"[{host}]" if ":" in host else host
    announce(f"http://{shown}:{port}{PATH}")
    await uvicorn.Server(config).serve(sockets=[sock])

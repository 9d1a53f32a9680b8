"""HTTP connections that cannot be held open for nothing (slowloris).

uvicorn closes a keep-alive connection idle between requests
(`timeout_keep_alive`), but nothing bounds the time a client takes to send a
request's headers, nor a connection that never sends a byte. This protocol,
uvicorn's own httptools one with two additions, does:

* a header timeout: from the connection (or from the first byte of the next
  request on a kept-alive connection) until the end of the headers; when it
  runs out the client gets `408 Request Timeout` (RFC 9110 §15.5.9) and the
  connection closes. Once the headers are in, the clock stops: a long upload
  and an SSE stream that lasts hours are never cut by it;
* a limit of open connections per client address: one more is answered
  `503` and closed at once. Trusted proxies are exempt: every client behind
  them shares their address, and the proxy bounds its own.

At shutdown, a request still running when the grace period is over (a body
that trickles in, a slow handler) is cancelled by uvicorn; `AnswerCutRequests`
makes it answer `503` with `Retry-After` rather than uvicorn's `500`, and says
in the log what was cut.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from core.identity.throttle import ConnectionsPerAddress

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
LINGER_SECONDS = 2.0  # how long a refused connection is read (and dropped) before closing
RETRY_AFTER_SECONDS = 5  # a request cut by shutdown: a restart or another replica by then
log = logging.getLogger("agentmail")


def _refusal(status: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


_TIMEOUT = _refusal("408 Request Timeout", "request_timeout", "the request headers came too slowly")
_TOO_MANY = _refusal(
    "503 Service Unavailable",
    "too_many_connections",
    "too many open connections from your address; close some and retry",
)


class ConnectionGuard:
    """The open connections per address, shared by every connection of one server."""

    def __init__(self, header_timeout: float, per_address: int, trusted: list[IPNetwork]) -> None:
        self.header_timeout = header_timeout
        self.per_address = per_address
        self.trusted = trusted
        self.open = ConnectionsPerAddress(per_address)

    def exempt(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def admit(self, address: str) -> bool:
        return self.exempt(address) or self.open.take(address)

    def release(self, address: str) -> None:
        if not self.exempt(address):
            self.open.release(address)


def guarded_protocol(guard: ConnectionGuard) -> type[asyncio.Protocol]:
    """uvicorn's `http` protocol class for one server, bound to its guard."""

    class GuardedHttpProtocol(HttpToolsProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._header_timer: asyncio.TimerHandle | None = None
            self._counted: str | None = None
            self._lingering = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else ""
            if not guard.admit(address):
                self._refuse(_TOO_MANY)
                return
            if not guard.exempt(address):
                self._counted = address
            self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_header_timer()
            if self._counted is not None:
                guard.release(self._counted)
                self._counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if not self._lingering:  # after a refusal, what the client still sends is dropped
                super().data_received(data)

        def _refuse(self, answer: bytes) -> None:
            """Answer, half-close and read on for a moment before closing (RFC 9112 §9.6):
            closing at once with the client's bytes still arriving makes the kernel reset
            the connection, and the client may lose the answer to the reset."""
            self._lingering = True
            self.transport.write(answer)
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_timer is None:
                self._arm_header_timer()

        def on_headers_complete(self) -> None:
            self._stop_header_timer()
            super().on_headers_complete()

        def _arm_header_timer(self) -> None:
            self._header_timer = self.loop.call_later(guard.header_timeout, self._headers_late)

        def _stop_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:
                # Not in the middle of an earlier (pipelined) response: say why.
                self._refuse(_TIMEOUT)
            else:
                self.transport.close()

    return GuardedHttpProtocol


class AnswerCutRequests:
    """ASGI: a request cancelled in flight, which only the end of the shutdown's grace
    period does (uvicorn cancels what is still running then), answers `503` with
    `Retry-After` (RFC 9110 §15.6.4, §10.2.3) when no response has begun, and is
    logged. uvicorn would answer `500`, a server fault, to a request it merely
    stopped waiting for; a client retries a 503."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except asyncio.CancelledError:
            answer = "its response had begun: closed" if started else "answered 503"
            log.warning(
                "shutdown: the grace period is over; cut %s %s (%s)",
                scope["method"],
                scope["path"],
                answer,
            )
            if started:
                raise
            # The request's task ends here, answered; uvicorn then closes the connection.
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(_SHUTTING_DOWN)).encode()),
                        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
                        (b"connection", b"close"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": _SHUTTING_DOWN})


_SHUTTING_DOWN = json.dumps(
    {"error": {"code": "shutting_down", "message": "the gateway is stopping; retry shortly"}}
).encode()

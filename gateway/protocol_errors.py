"""A listener's protocol factory whose failures are logged, not dropped.

asyncio calls a server's protocol factory for every accepted connection and,
outside its debug mode, drops what the factory raises: the client sees its
connection closed before any greeting, the log says nothing, and the listener
looks healthy from outside. Every SMTP and IMAP listener's factory is wrapped
here, so such a fault is logged at ERROR with its stack and the connection is
closed at once (the client reads the end of the stream). A fault there usually
hits every connection: the stack is logged once per `QUIET_SECONDS` per listener,
with the count of failures since, so a client retrying in a loop cannot fill the
disk with the same stack.
"""

from __future__ import annotations

import asyncio
import logging
import time

from core.proxied.listener import PeerFactory
from core.proxied.peer import Peer

log = logging.getLogger("agentmail.listeners")
QUIET_SECONDS = 10.0


class _Closing(asyncio.Protocol):
    """Stands in for the protocol that could not be built: ends the connection at once
    (asyncio would leave the accepted socket to the garbage collector)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class LoggedFactories:
    """Wraps the protocol factories of the listener named `listener` ("SMTP")."""

    def __init__(self, listener: str) -> None:
        self.listener = listener
        self._last = -float("inf")
        self._unlogged = 0

    def __call__(self, factory: PeerFactory) -> PeerFactory:
        def build(peer: Peer | None) -> asyncio.BaseProtocol:
            try:
                return factory(peer)
            except Exception:
                self._failed()
                return _Closing()

        return build

    def _failed(self) -> None:
        now = time.monotonic()
        if now - self._last < QUIET_SECONDS:
            self._unlogged += 1
            return
        since = f" ({self._unlogged} more since the last report)" if self._unlogged else ""
        log.exception(
            "%s: a connection was closed before its greeting: building its protocol failed%s",
            self.listener,
            since,
        )
        self._last, self._unlogged = now, 0

"""The IMAP server on the gateway's own loop (pymap's engine, our backend).

pymap's `IMAPService` binds its own sockets and leaves connection tasks running;
here the gateway binds the socket (port 0 picks a free one, as for HTTP and
SMTP) and `stop` closes every connection before the store goes away.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable
from uuid import uuid4

from proxyprotocol.result import ProxyResultLocal
from proxyprotocol.sock import SocketInfo
from pymap.imap import IMAPServer

from core.identity.throttle import LoginThrottle
from core.store.blobs import BlobStore
from core.store.engine import Store
from imap_view.backend import Backend
from imap_view.config import GatewayImapConfig
from imap_view.login import Login
from imap_view.pymap_speedups import install as install_speedups

__all__ = ["start_imap"]

install_speedups()


async def start_imap(
    store: Store,
    blobs: BlobStore,
    domain: str,
    sock: socket.socket,
    *,
    allow_plaintext_auth: bool,
    throttle: LoginThrottle,
    tls: ssl.SSLContext | None = None,
    implicit_tls: bool = False,
) -> Callable[[], Awaitable[None]]:
    """Serve IMAP on `sock` (bound and listening) on the running loop; returns `stop`.

    With `tls`, STARTTLS is offered (RFC 3501 §6.2.1); with `implicit_tls` too, every
    connection starts with the TLS handshake instead (RFC 8314 §3.3, imaps).
    """
    if implicit_tls and tls is None:
        raise ValueError("implicit TLS needs a TLS context")
    config = GatewayImapConfig(
        domain=domain, allow_plaintext_auth=allow_plaintext_auth, tls=tls, implicit_tls=implicit_tls
    )
    imap = IMAPServer(Login(Backend(store, blobs, domain, config), throttle), config)
    connections: set[asyncio.Task[None]] = set()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        connections.add(task)
        try:
            info = SocketInfo.get(writer, ProxyResultLocal(), unique_id=uuid4().bytes)
            await imap(reader, writer, info)
        finally:
            connections.discard(task)

    server = await asyncio.start_server(connected, sock=sock, ssl=tls if implicit_tls else None)

    async def stop() -> None:
        server.close()
        for task in list(connections):
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        await server.wait_closed()

    return stop

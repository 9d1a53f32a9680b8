"""How a listener accepts connections: directly (asyncio's server), or expecting a
PROXY header from trusted proxies (HAProxy's doc/proxy-protocol.txt).

A listener's protocol factory takes the connection's `Peer`, or None when the socket's
own address is the client's. `listen_directly` is asyncio's `create_server`. A
`ProxiedListen` listener accepts each connection itself, and then:

- from a peer in `AGENTMAIL_TRUSTED_PROXIES`, reads the header first (within
  `HEADER_SECONDS`, core/proxied/header.py): the client it names is the peer (a v2
  LOCAL, or an UNKNOWN, AF_UNIX client is the proxy itself, as §2.1 and §2.2 say);
  a connection whose header is missing, malformed or late is closed, since serving it
  would lump every client of the proxy together under the proxy's address;
- from anyone else, reads nothing: the connection is served as is, with its own
  address, so clients that connect directly still work and a header an untrusted
  peer sends is only a bad command (RFC 5321's 500, IMAP's BAD), never believed;
- then, on an implicit-TLS listener, starts TLS: the header precedes the handshake
  (what nginx's `proxy_protocol on` and HAProxy's `send-proxy` send).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from proxyprotocol.result import is_ipv4, is_ipv6

from core.proxied.header import HeaderRefused, read_header
from core.proxied.peer import Network, Peer, is_trusted, proxied_peer, socket_peer
from core.tasks import cancel_and_wait

__all__ = ["HEADER_SECONDS", "Listen", "PeerFactory", "ProxiedListen", "Serving"]

log = logging.getLogger("agentmail.listeners")
HEADER_SECONDS = 5.0  # a proxy sends its header as it connects (nginx, HAProxy)
ACCEPT_RETRY_SECONDS = 1.0  # after EMFILE and the like, as asyncio's own server waits

PeerFactory = Callable[[Peer | None], asyncio.BaseProtocol]


class Serving(Protocol):
    """What `stop` needs of a listener (asyncio's `Server` is one)."""

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


Listen = Callable[[PeerFactory, socket.socket, ssl.SSLContext | None, int], Awaitable[Serving]]


async def listen_directly(
    factory: PeerFactory, sock: socket.socket, tls: ssl.SSLContext | None, backlog: int
) -> Serving:
    """asyncio's server on `sock`: each connection's client is its socket's peer."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: factory(None), sock=sock, ssl=tls, backlog=backlog)


class ProxiedListen:
    """Listens on a socket whose connections from `trusted` start with a PROXY header;
    `name` ("SMTPS") is what the log says."""

    def __init__(
        self, name: str, trusted: Sequence[Network], header_seconds: float = HEADER_SECONDS
    ) -> None:
        self.name = name
        self.trusted = tuple(trusted)
        self.header_seconds = header_seconds

    async def __call__(
        self, factory: PeerFactory, sock: socket.socket, tls: ssl.SSLContext | None, backlog: int
    ) -> Serving:
        # `backlog` is the socket's already (gateway/sockets.py listened with it).
        return _ProxiedServer(self, factory, sock, tls)


class _ProxiedServer:
    """An accept loop and the connections still being admitted (header, TLS handshake);
    once admitted, a connection belongs to its protocol, which the listener's own `stop`
    ends."""

    def __init__(
        self,
        how: ProxiedListen,
        factory: PeerFactory,
        sock: socket.socket,
        tls: ssl.SSLContext | None,
    ) -> None:
        self._how, self._factory, self._sock, self._tls = how, factory, sock, tls
        self._admitting: set[asyncio.Task[None]] = set()
        self._accepting = asyncio.create_task(self._accept(), name=f"{how.name} accept")

    def close(self) -> None:
        self._accepting.cancel()
        for task in list(self._admitting):
            task.cancel()

    async def wait_closed(self) -> None:
        await cancel_and_wait([self._accepting, *self._admitting], f"{self._how.name} accept")

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, address = await loop.sock_accept(self._sock)
            except (ConnectionAbortedError, InterruptedError):
                continue  # the client gave up while queued
            except OSError as error:  # out of descriptors or memory: wait, as asyncio does
                log.error("%s: cannot accept connections: %s", self._how.name, error)
                await asyncio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            task = asyncio.create_task(self._admit(conn, socket_peer(address)))
            self._admitting.add(task)
            task.add_done_callback(self._admitting.discard)

    async def _admit(self, conn: socket.socket, direct: Peer) -> None:
        loop = asyncio.get_running_loop()
        try:
            peer = await self._peer(conn, direct)
            if peer is not None:
                factory = self._factory
                await loop.connect_accepted_socket(lambda: factory(peer), conn, ssl=self._tls)
                return
        except (OSError, ssl.SSLError, EOFError):
            pass  # a reset, a failed handshake: nothing was served
        except BaseException:
            conn.close()
            raise
        conn.close()

    async def _peer(self, conn: socket.socket, direct: Peer) -> Peer | None:
        """The client: the header's, from a trusted proxy (None: it sent none); else the
        socket's own (`direct`), whatever it sends."""
        if not is_trusted(direct.host, self._how.trusted):
            return direct
        try:
            async with asyncio.timeout(self._how.header_seconds):
                result = await read_header(conn)
        except (HeaderRefused, TimeoutError, OSError) as error:
            why = str(error) or f"no PROXY header within {self._how.header_seconds:g} s"
            name = self._how.name
            log.warning("%s: closed a connection from the proxy %s: %s", name, direct.host, why)
            return None
        if is_ipv4(result) or is_ipv6(result):
            host, port = result.peername[:2]
            return proxied_peer((host, port), direct)
        return Peer(direct.host, direct.port, direct.loopback, direct.host)

"""The IMAP server on the gateway's own loop (pymap's engine, our backend).

pymap's `IMAPService` binds its own sockets and leaves connection tasks running;
here the gateway binds the socket (port 0 picks a free one, as for HTTP and
SMTP) and `stop` closes every connection before the store goes away. Each
connection is pymap's, with its reads bounded (imap_view/connection.py), and a
client address holds at most so many connections at once. A listener may take its
clients' addresses from a trusted proxy's PROXY header (core/proxied/): pymap then
sees that client (`ProxiedSocketInfo`), for the login throttle and the loopback rule.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack, closing
from uuid import uuid4

from proxyprotocol.result import ProxyResultLocal
from proxyprotocol.sock import SocketInfo, SocketInfoLocal
from pymap.context import connection_exit
from pymap.imap import IMAPServer

from core import metrics
from core.identity.login_guard import LoginGuard
from core.identity.signed_in import SignedIn
from core.identity.throttle import ConnectionsPerAddress
from core.proxied.listener import Listen, PeerFactory, listen_directly
from core.proxied.peer import Peer
from core.rendering.backfill import KeptQueue
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.tasks import cancel_and_wait
from imap_view.backend import Backend
from imap_view.config import GatewayImapConfig
from imap_view.connection import CURRENT_CONNECTION, LimitedConnection
from imap_view.content_cache import ContentCache
from imap_view.decoders import install as install_decoders
from imap_view.kept_contents import KeptCache
from imap_view.limits import ImapLimits
from imap_view.login import Login
from imap_view.mailbox_names import install as install_name_decoding
from imap_view.pymap_speedups import install as install_speedups
from imap_view.state import GatewayState

__all__ = ["start_imap"]

_STREAM_LIMIT = 2**16  # asyncio.start_server's default: a read buffer's bound

install_speedups()
install_decoders()
install_name_decoding()


class ProxiedSocketInfo(SocketInfoLocal):
    """The connection as pymap sees it, with the client a trusted proxy named: its
    address, and loopback only as `Peer` decides (not from the header alone)."""

    __slots__ = ["_peer"]

    def __init__(self, writer: asyncio.StreamWriter, peer: Peer) -> None:
        super().__init__(writer, unique_id=uuid4().bytes)
        self._peer = peer

    @property
    def peername(self) -> tuple[str, int]:
        return self._peer.address

    @property
    def from_localhost(self) -> bool:
        return self._peer.loopback


class _Server(IMAPServer):
    """pymap's IMAPServer.__call__ with our connection and state classes."""

    __slots__ = ["_limits"]

    def __init__(self, login: Login, config: GatewayImapConfig, limits: ImapLimits) -> None:
        super().__init__(login, config)
        self._limits = limits

    async def __call__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sock_info: SocketInfo
    ) -> None:
        conn = LimitedConnection(
            self.commands, self._config, reader, writer, sock_info, limits=self._limits
        )
        CURRENT_CONNECTION.set(conn)
        state = GatewayState(self._login, self._config)
        async with AsyncExitStack() as stack:
            connection_exit.set(stack)
            stack.enter_context(closing(conn))
            await conn.run(state)


async def start_imap(
    store: Store,
    blobs: BlobStore,
    domain: str,
    sock: socket.socket,
    *,
    allow_plaintext_auth: bool,
    guard: LoginGuard,
    limits: ImapLimits,
    connections: ConnectionsPerAddress,
    backlog: int,
    tls: ssl.SSLContext | None = None,
    implicit_tls: bool = False,
    guard_factory: Callable[[PeerFactory], PeerFactory] | None = None,
    signed_in: SignedIn | None = None,
    kept_writes: KeptQueue | None = None,
    listen: Listen = listen_directly,
) -> Callable[[], Awaitable[None]]:
    """Serve IMAP on `sock` (bound and listening) on the running loop; returns `stop`.

    With `tls`, STARTTLS is offered (RFC 3501 §6.2.1); with `implicit_tls` too, every
    connection starts with the TLS handshake instead (RFC 8314 §3.3, imaps).
    `backlog` is passed on: asyncio listens again with its own default (100) otherwise.
    `guard_factory` wraps the protocol factory (the gateway logs what asyncio would drop
    silently: an error while a connection's protocol is built). `kept_writes` takes the
    structures FETCH makes for mails with none kept yet (core/rendering/backfill.py).
    `listen` accepts the connections (core/proxied/listener.py).
    """
    if implicit_tls and tls is None:
        raise ValueError("implicit TLS needs a TLS context")
    config = GatewayImapConfig(
        domain=domain,
        allow_plaintext_auth=allow_plaintext_auth,
        tls=tls,
        implicit_tls=implicit_tls,
        max_append_len=limits.max_append_bytes,
    )
    # An eighth of the budget keeps listings' summaries (imap_view/kept_contents.py).
    contents = ContentCache(limits.content_cache_bytes - limits.content_cache_bytes // 8)
    backend = Backend(
        store,
        blobs,
        domain,
        config,
        contents,
        keyword_limits=limits.keywords,
        kept=KeptCache(limits.content_cache_bytes // 8),
        kept_writes=kept_writes,
    )
    imap = _Server(Login(backend, guard, signed_in), config, limits)
    tasks: set[asyncio.Task[None]] = set()

    async def connected(
        peer: Peer | None, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        if peer is None:
            own = writer.get_extra_info("peername")
            address = str(own[0]) if isinstance(own, tuple) and own else ""
        else:
            address = peer.host
        if not connections.take(address):
            await _turn_away(writer, connections.limit)
            tasks.discard(task)
            return
        metrics.CONNECTIONS.labels("imap").inc()
        metrics.CONNECTIONS_OPEN.labels("imap").inc()
        try:
            info = (
                SocketInfo.get(writer, ProxyResultLocal(), unique_id=uuid4().bytes)
                if peer is None
                else ProxiedSocketInfo(writer, peer)
            )
            await imap(reader, writer, info)
        finally:
            metrics.CONNECTIONS_OPEN.labels("imap").dec()
            connections.release(address)
            tasks.discard(task)

    loop = asyncio.get_running_loop()

    def streams(peer: Peer | None) -> asyncio.StreamReaderProtocol:
        """What `asyncio.start_server` builds for each connection, made here so that
        the factory can be wrapped."""
        reader = asyncio.StreamReader(limit=_STREAM_LIMIT, loop=loop)
        return asyncio.StreamReaderProtocol(reader, functools.partial(connected, peer), loop=loop)

    factory: PeerFactory = streams if guard_factory is None else guard_factory(streams)
    server = await listen(factory, sock, tls if implicit_tls else None, backlog)

    async def stop() -> None:
        server.close()
        await cancel_and_wait(list(tasks), "IMAP sessions")
        await server.wait_closed()

    return stop


async def _turn_away(writer: asyncio.StreamWriter, limit: int) -> None:
    """RFC 3501 §7.1.5: a BYE as the greeting says the server will not serve this client."""
    text = f"* BYE [LIMIT] Too many connections from your address (at most {limit}).\r\n"
    try:
        writer.write(text.encode())
        await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()

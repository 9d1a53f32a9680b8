"""A client of a listener behind a PROXY protocol proxy, as the proxy would connect: from
`source`, with the header (v1 or v2, built by the `proxy-protocol` library) naming
`client`, then TLS when the listener speaks it from the first byte."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from proxyprotocol.result import ProxyResult, ProxyResultIPv4, ProxyResultIPv6
from proxyprotocol.v1 import ProxyProtocolV1
from proxyprotocol.v2 import ProxyProtocolV2

from tests.support.raw_lines import RawConnection


def header(client: str, port: int, version: int = 1, client_port: int = 40000) -> bytes:
    """The header a proxy sends for `client` connecting to it, forwarded to `port`."""
    ip = ipaddress.ip_address(client)
    result: ProxyResult
    if isinstance(ip, ipaddress.IPv4Address):
        result = ProxyResultIPv4((ip, client_port), (ipaddress.IPv4Address("127.0.0.1"), port))
    else:
        result = ProxyResultIPv6((ip, client_port), (ipaddress.IPv6Address("::1"), port))
    return (ProxyProtocolV1() if version == 1 else ProxyProtocolV2()).pack(result)


@asynccontextmanager
async def proxied(
    port: int,
    client: str | None,
    *,
    version: int = 1,
    source: str = "127.0.0.1",
    tls: ssl.SSLContext | None = None,
) -> AsyncIterator[RawConnection]:
    """A connection from `source` that first says `client` is behind it (None: no header)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        if client is not None:
            writer.write(header(client, port, version))
        if tls is not None:
            await writer.start_tls(tls, server_hostname="localhost")
        yield RawConnection(reader, writer)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError, ssl.SSLError):
            await writer.wait_closed()

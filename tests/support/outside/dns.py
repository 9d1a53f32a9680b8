"""The outside world's DNS: an authoritative server for the test zones, in the test.

Written with dnslib and served by the test's own event loop from sockets made inside
the `dns` host's namespace (netns.socket_in), so the hosts query it as any resolver
would (their /etc/resolv.conf names it) while a test changes a record with one call:
`set_txt`, `set_mx`, `set_a`, `remove`. It answers only for its zones (REFUSED
elsewhere: nothing is ever looked up outside), NXDOMAIN for a name with no records,
an empty answer for a name with records of other types or only below it (RFC 1034
§4.3.2), over UDP (truncated with TC when the reply does not fit, RFC 1035 §4.2.1,
RFC 6891 §6.2.5) and TCP (RFC 7766). Every question asked is kept in `queries`, for a
test or a failure log.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import cast

import dns.resolver
from dnslib import MX, QTYPE, RCODE, RR, TXT, A, DNSError, DNSRecord

from tests.support.outside.netns import socket_in

TTL = 5
UDP_LIMIT = 512  # without EDNS, RFC 1035 §4.2.1
TXT_CHUNK = 255  # one character-string, RFC 1035 §3.3.14


def _name(name: str) -> str:
    return name.rstrip(".").lower()


@dataclass
class Zones:
    """The records served, by (name, type); changed by the test at any time."""

    origins: tuple[str, ...]
    records: dict[tuple[str, str], list[A | MX | TXT]] = field(default_factory=dict)
    queries: list[tuple[str, str]] = field(default_factory=list)

    def set_a(self, name: str, address: str) -> None:
        self.records[(_name(name), "A")] = [A(address)]

    def set_mx(self, domain: str, host: str, preference: int = 10) -> None:
        self.records[(_name(domain), "MX")] = [MX(_name(host) + ".", preference)]

    def set_txt(self, name: str, *texts: str) -> None:
        """The TXT records at `name`, one per text (none: no TXT record at all); a long
        text is split into 255-byte strings, as a DKIM key is published."""
        rdata = []
        for text in texts:
            raw = text.encode()
            rdata.append(TXT([raw[i : i + TXT_CHUNK] for i in range(0, len(raw), TXT_CHUNK)]))
        self._put(name, "TXT", rdata)

    def remove(self, name: str, rtype: str | None = None) -> None:
        for key in [key for key in self.records if key[0] == _name(name)]:
            if rtype is None or key[1] == rtype:
                del self.records[key]

    def _put(self, name: str, rtype: str, rdata: list[A | MX | TXT]) -> None:
        if rdata:
            self.records[(_name(name), rtype)] = rdata
        else:
            self.records.pop((_name(name), rtype), None)

    def answer(self, request: DNSRecord) -> DNSRecord:
        reply = request.reply()
        question = request.q
        qname, qtype = _name(str(question.qname)), QTYPE[question.qtype]
        self.queries.append((qname, qtype))
        if not any(qname == zone or qname.endswith("." + zone) for zone in self.origins):
            reply.header.aa = 0
            reply.header.rcode = RCODE.REFUSED
            return reply
        for rdata in self.records.get((qname, qtype), []):
            reply.add_answer(RR(question.qname, question.qtype, rdata=rdata, ttl=TTL))
        if not any(name == qname or name.endswith("." + qname) for name, _ in self.records):
            reply.header.rcode = RCODE.NXDOMAIN  # no records at or below it (RFC 8020)
        return reply


def _udp_limit(request: DNSRecord) -> int:
    """The requester's UDP payload size from its EDNS OPT record (RFC 6891 §6.2.5)."""
    sizes = [rr.rclass for rr in request.ar if rr.rtype == QTYPE.OPT]
    return max(UDP_LIMIT, *sizes) if sizes else UDP_LIMIT


class _Udp(asyncio.DatagramProtocol):
    def __init__(self, zones: Zones) -> None:
        self.zones = zones
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        try:
            request = DNSRecord.parse(data)
        except DNSError:
            return
        reply = self.zones.answer(request)
        packed = reply.pack()
        if len(packed) > _udp_limit(request):
            packed = reply.truncate().pack()
        assert self.transport is not None
        self.transport.sendto(packed, addr)


async def _serve_tcp(
    zones: Zones, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Length-prefixed queries on one connection until the client closes it (RFC 7766)."""
    try:
        while True:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
            request = DNSRecord.parse(await reader.readexactly(length))
            packed = zones.answer(request).pack()
            writer.write(struct.pack("!H", len(packed)) + packed)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, DNSError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


@dataclass
class DnsServer:
    address: str
    zones: Zones
    port: int = 53

    def set_a(self, name: str, address: str) -> None:
        self.zones.set_a(name, address)

    def set_mx(self, domain: str, host: str, preference: int = 10) -> None:
        self.zones.set_mx(domain, host, preference)

    def set_txt(self, name: str, *texts: str) -> None:
        self.zones.set_txt(name, *texts)

    def remove(self, name: str, rtype: str | None = None) -> None:
        self.zones.remove(name, rtype)

    def resolver(self) -> dns.resolver.Resolver:
        """A dnspython resolver that asks this server only (blocking: use in a thread)."""
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers = [self.address]
        resolver.port = self.port
        resolver.lifetime = 10.0
        resolver.cache = None
        return resolver

    def txt(self, name: str) -> list[str]:
        """Each TXT record at `name`, its strings joined (blocking: use in a thread)."""
        try:
            answer = self.resolver().resolve(name, "TXT")
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        return [b"".join(rdata.strings).decode() for rdata in answer]

    def dkim_dnsfunc(self, name: bytes | str, timeout: int = 5) -> bytes | None:
        """dkimpy's `dnsfunc`: the first TXT record at `name`, looked up here."""
        texts = self.txt(name.decode() if isinstance(name, bytes) else name)
        return texts[0].encode() if texts else None


def _here(_namespace: str, kind: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, kind)
    sock.setblocking(False)
    return sock


PORT_TRIES = 20


def _bound_pair(
    namespace: str | None, address: str, port: int
) -> tuple[socket.socket, socket.socket]:
    """A UDP and a TCP socket bound to one port. With port 0 the UDP socket picks it and
    the TCP port of that number may be taken (another test's connection): try another."""
    made = socket_in if namespace is not None else _here
    for _ in range(PORT_TRIES if port == 0 else 1):
        udp_socket = made(namespace or "", socket.SOCK_DGRAM)
        tcp_socket = made(namespace or "", socket.SOCK_STREAM)
        try:
            udp_socket.bind((address, port))
            tcp_socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            tcp_socket.bind((address, udp_socket.getsockname()[1]))
        except OSError:
            udp_socket.close()
            tcp_socket.close()
            if port != 0:
                raise
            continue
        return udp_socket, tcp_socket
    raise OSError(f"no port free for both UDP and TCP on {address} after {PORT_TRIES} tries")


@asynccontextmanager
async def running_dns(
    namespace: str | None, address: str, origins: Iterable[str], port: int = 53
) -> AsyncIterator[DnsServer]:
    """Serve `origins` on `port` of `address` inside `namespace` (None: this one; port 0:
    one free port for both), UDP and TCP."""
    zones = Zones(tuple(_name(origin) for origin in origins))
    loop = asyncio.get_running_loop()
    udp_socket, tcp_socket = _bound_pair(namespace, address, port)
    port = udp_socket.getsockname()[1]
    transport, _ = await loop.create_datagram_endpoint(lambda: _Udp(zones), sock=udp_socket)
    server = await asyncio.start_server(
        lambda reader, writer: _serve_tcp(zones, reader, writer), sock=tcp_socket
    )
    try:
        yield DnsServer(address, zones, port)
    finally:
        transport.close()
        server.close()
        await server.wait_closed()

"""The client of one connection: the address every per-address rule counts (connection
limits, the login throttle), logs name, SPF judges, and whether it is on this host.

A connection through a trusted proxy (core/proxied/listener.py) has the client the
proxy's PROXY header names. It counts as loopback (plaintext AUTH allowed, RFC 4954
§4) only when both legs are: the header says the client connected to the proxy from
loopback *and* the proxy connected here from loopback. The header's word alone is
not enough: a proxy on another host that names a client on its own loopback passes
that client's password over the network between the two hosts.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Network", "Peer", "is_trusted", "proxied_peer", "socket_peer"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class Peer:
    """`host` the client's address as text, `loopback` whether it is on this host,
    `proxy` the trusted proxy's address when it came through one."""

    host: str
    port: int
    loopback: bool
    proxy: str | None = None

    @property
    def address(self) -> tuple[str, int]:
        """As a socket's peername is: (host, port)."""
        return (self.host, self.port)


def _ip(host: str) -> Address | None:
    """`host` as an address, an IPv4-mapped IPv6 one (a dual-stack socket's) as IPv4."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _loopback(host: str) -> bool:
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def socket_peer(peername: Any) -> Peer:
    """The peer a socket's own `peername` gives (a connection that came directly)."""
    if isinstance(peername, tuple) and len(peername) >= 2:
        host = str(peername[0])
        return Peer(host, int(peername[1]), _loopback(host))
    return Peer("", 0, False)


def proxied_peer(client: tuple[str, int], proxy: Peer) -> Peer:
    """The client a trusted `proxy`'s header named: loopback only if both legs are."""
    host = client[0]
    return Peer(host, client[1], _loopback(host) and proxy.loopback, proxy.host)


def is_trusted(host: str, networks: Sequence[Network]) -> bool:
    ip = _ip(host)
    return ip is not None and any(ip in network for network in networks)

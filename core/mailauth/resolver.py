"""The DNS every verdict is read from: dnspython's resolver, pointed where the settings say.

SPF (pyspf), DKIM (dkimpy) and DMARC (dmarc.py) each look records up through
dnspython's default resolver; pyspf has no other hook, so the gateway sets that default
once at start. With no servers named it is the system's (/etc/resolv.conf). Answers are
cached for their TTL, and every lookup has a deadline: a slow name server makes a
verdict `temperror`, never a stalled mail.
"""

from __future__ import annotations

import ipaddress
from typing import Final

import dns.resolver

__all__ = ["LOOKUP_SECONDS", "make_resolver", "parse_servers", "use_resolver"]

LOOKUP_SECONDS: Final = 5.0


def parse_servers(text: str) -> list[tuple[str, int]]:
    """`10.0.0.53, [2001:db8::1]:5353, 10.0.0.54:5300` → (address, port) pairs."""
    servers = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        host, port = item, 53
        if item.startswith("["):
            host, _, rest = item[1:].partition("]")
            port = int(rest[1:]) if rest.startswith(":") else 53
        elif item.count(":") == 1:
            host, _, number = item.partition(":")
            port = int(number)
        ipaddress.ip_address(host)  # a name server is an address: no lookup to find it
        if not 0 < port < 65536:
            raise ValueError(f"port out of range in {item!r}")
        servers.append((host, port))
    return servers


def use_resolver(servers: list[tuple[str, int]]) -> dns.resolver.Resolver:
    """Make dnspython's default resolver ask `servers` (the system's when empty)."""
    resolver = make_resolver(servers)
    dns.resolver.default_resolver = resolver
    return resolver


def make_resolver(servers: list[tuple[str, int]]) -> dns.resolver.Resolver:
    """A resolver asking `servers` (the system's when empty), with this module's deadlines
    and a cache; the default one is left as it is."""
    resolver = dns.resolver.Resolver(configure=not servers)
    if servers:
        resolver.nameservers = [host for host, _ in servers]
        ports = {port for _, port in servers}
        resolver.port = ports.pop() if len(ports) == 1 else 53
        resolver.nameserver_ports = {host: port for host, port in servers}
    resolver.lifetime = LOOKUP_SECONDS
    resolver.timeout = LOOKUP_SECONDS / 2
    resolver.cache = dns.resolver.LRUCache(4096)
    return resolver

"""Which push endpoints the gateway will post to.

A subscription's endpoint is a URL the browser's push service made, but the gateway
takes it from a client: without a check, anyone with a login could make the gateway
post to its own loopback or the private network behind it (SSRF). So an endpoint is
https, and its host (every address a name resolves to) is a global one; the admin
setting `AGENTMAIL_PUSH_ALLOW_PRIVATE_ENDPOINTS` lifts both rules, for a local push
service in tests.

The check runs when the subscription is made and again before each push (a name may
resolve elsewhere later); the push itself connects to whatever the name resolves to
then, so an attacker's DNS that flips between the two checks is not stopped here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from core.errors import FieldProblem, InvalidRequest

MAX_ENDPOINT_CHARS = 2048


def _refused(reason: str) -> InvalidRequest:
    return InvalidRequest(f"push endpoint refused: {reason}", FieldProblem("endpoint", "invalid"))


def _global(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def _addresses(host: str, port: int) -> list[str]:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return [host]
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise _refused(f"the host {host!r} does not resolve") from error
    return [str(info[4][0]) for info in found]


async def check_endpoint(endpoint: str, *, allow_private: bool) -> None:
    """Raise `InvalidRequest` unless the gateway may post pushes to `endpoint`."""
    if len(endpoint) > MAX_ENDPOINT_CHARS:
        raise _refused(f"longer than {MAX_ENDPOINT_CHARS} characters")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as error:
        raise _refused("not a URL") from error
    host = parts.hostname
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes or not host:
        raise _refused("an https URL is needed")
    if parts.username is not None or parts.password is not None:
        raise _refused("credentials in the URL")
    if allow_private:
        return
    addresses = await _addresses(host, port or 443)
    if not addresses or not all(_global(address) for address in addresses):
        raise _refused(f"the host {host!r} is not a public address")

"""Which URLs the gateway will post to: push endpoints, and webhook endpoints alike.

A subscription's endpoint is a URL the browser's push service made, but the gateway
takes it from a client: without a check, anyone with a login could make the gateway
post to its own loopback or the private network behind it (SSRF). So an endpoint is
https, and its host (every address a name resolves to) is a global one; the admin
setting `AGENTMAIL_PUSH_ALLOW_PRIVATE_ENDPOINTS` lifts both rules, for a local push
service in tests.

Webhook endpoints (core/webhooks/) are checked by the same rules, under their own admin
setting, `AGENTMAIL_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS`.

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


class _Refusal:
    def __init__(self, what: str, field: str) -> None:
        self.what, self.field = what, field

    def __call__(self, reason: str) -> InvalidRequest:
        return InvalidRequest(f"{self.what} refused: {reason}", FieldProblem(self.field, "invalid"))


def _global(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def _addresses(host: str, port: int, refused: _Refusal) -> list[str]:
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
        raise refused(f"the host {host!r} does not resolve") from error
    return [str(info[4][0]) for info in found]


async def check_endpoint(
    endpoint: str, *, allow_private: bool, what: str = "push endpoint", field: str = "endpoint"
) -> None:
    """Raise `InvalidRequest` (a problem of `field`) unless the gateway may post to
    `endpoint`."""
    refused = _Refusal(what, field)
    if len(endpoint) > MAX_ENDPOINT_CHARS:
        raise refused(f"longer than {MAX_ENDPOINT_CHARS} characters")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as error:
        raise refused("not a URL") from error
    host = parts.hostname
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes or not host:
        raise refused("an https URL is needed")
    if parts.username is not None or parts.password is not None:
        raise refused("credentials in the URL")
    if allow_private:
        return
    addresses = await _addresses(host, port or 443, refused)
    if not addresses or not all(_global(address) for address in addresses):
        raise refused(f"the host {host!r} is not a public address")

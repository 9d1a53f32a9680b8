"""What a human types into a mail client (the Account page): host, ports, security.

The gateway binds SMTP and IMAP after the HTTP app is built, and port 0 picks a
free port, so the bound ports reach the app through `Listeners`, which the
gateway fills once they are bound. Behind NAT or a proxy the public host and
ports differ from the bound ones: `AGENTMAIL_PUBLIC_HOST` and
`AGENTMAIL_PUBLIC_*_PORT` say what clients should use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from core.settings import Settings

Security = Literal["ssl/tls", "starttls", "none"]
_WILDCARDS = {"", "0.0.0.0", "::", "[::]"}


@dataclass
class Listeners:
    """The ports the gateway bound (None: that listener is off or not started yet)."""

    smtp_port: int | None = None
    smtps_port: int | None = None
    imap_port: int | None = None
    imaps_port: int | None = None
    tls: bool = False
    # True from the moment every listener is up until shutdown begins (`/readyz`).
    serving: bool = False
    # Whether each listener serves (a greeting read from it): listener -> "ok" or why not.
    # The gateway gives it, with the ports; `/readyz` asks it.
    check: Callable[[], Awaitable[dict[str, str]]] | None = None


class Port(BaseModel):
    port: int
    security: Security


class Server(BaseModel):
    """The recommended port first (RFC 8314 §3: implicit TLS where offered), then `ports`,
    every port the server offers."""

    host: str
    port: int | None
    security: Security | None
    ports: list[Port]


class MailSettings(BaseModel):
    smtp: Server
    imap: Server
    username: str
    address: str
    email: str


def _server(host: str, plain: int | None, implicit: int | None, tls: bool) -> Server:
    ports = []
    if implicit is not None:
        ports.append(Port(port=implicit, security="ssl/tls"))
    if plain is not None:
        ports.append(Port(port=plain, security="starttls" if tls else "none"))
    first = ports[0] if ports else None
    return Server(
        host=host,
        port=first.port if first else None,
        security=first.security if first else None,
        ports=ports,
    )


def mail_settings(
    settings: Settings, listeners: Listeners, name: str, request_host: str
) -> MailSettings:
    """`request_host`: the host the browser reached us at, used when the servers
    bind every interface and no public host is set."""
    host = settings.public_host or settings.host
    if host in _WILDCARDS:
        host = request_host
    smtp = _server(
        host,
        settings.public_smtp_port or listeners.smtp_port,
        settings.public_smtps_port or listeners.smtps_port,
        listeners.tls,
    )
    imap = _server(
        host,
        settings.public_imap_port or listeners.imap_port,
        settings.public_imaps_port or listeners.imaps_port,
        listeners.tls,
    )
    email = f"{name}@{settings.domain}"
    return MailSettings(smtp=smtp, imap=imap, username=name, address=f"{name}@", email=email)

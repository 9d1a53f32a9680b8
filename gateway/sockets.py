"""The gateway's listening sockets: bound by the process that serves them, or bound
once by the supervisor of `--workers` and inherited by every worker.

Workers accept on the very same sockets (file descriptors handed down, as gunicorn
does), not on sockets of their own with SO_REUSEPORT: port 0 gives every worker
the one port, a worker that is started again finds the sockets still listening
(nothing queued is dropped meanwhile), and an idle worker simply accepts more.
`listen_for` says how a listener accepts its connections: directly, or expecting a
PROXY header from a trusted proxy (`AGENTMAIL_PROXY_PROTOCOL`, core/proxied/).
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Mapping

from core.proxied.listener import Listen, ProxiedListen, listen_directly
from core.proxied.peer import is_trusted
from core.settings import Settings
from gateway.listener_probe import Listener, connect_host

# The listeners of one gateway, by name; the implicit-TLS ones only when set.
NAMES = ("http", "smtp", "smtps", "imap", "imaps", "mx")


class CannotListen(Exception):
    """A listener could not be bound; the message names its protocol, host and port."""


def _setting(name: str) -> str:
    return f"AGENTMAIL_{name.upper()}_PORT"


def bind_tcp(host: str, port: int, backlog: int, name: str) -> socket.socket:
    """A listening TCP socket for the listener `name` (http, smtp, …); port 0 picks a
    free one. A failure is a `CannotListen` that says which listener, where and why, in
    one line: a port held by another process is the usual one.

    `backlog` is the setting `listen_backlog`; every server on the socket is given it
    too, because asyncio's `create_server` listens again with its own default (100).

    Created with IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets
    whose protocol says TCP, and without it a response's second write waits for the
    peer's delayed ACK (Nagle).
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )[0]
    except OSError as error:
        raise CannotListen(f"cannot listen for {name.upper()} on {host}:{port}: {error}") from error
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(address)
        sock.listen(backlog)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        why = error.strerror or str(error)
        hint = ""
        if error.errno == errno.EADDRINUSE:
            hint = f" (another process holds it; choose another port with {_setting(name)})"
        elif error.errno == errno.EACCES and 0 < port < 1024:
            hint = " (a port below 1024 needs CAP_NET_BIND_SERVICE)"
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        raise CannotListen(f"cannot listen for {name.upper()} on {where}: {why}{hint}") from error
    except BaseException:
        sock.close()
        raise
    return sock


def ports(settings: Settings) -> dict[str, int]:
    """The port setting of each listener the settings ask for."""
    wanted = {
        "http": settings.http_port,
        "smtp": settings.smtp_port,
        "smtps": settings.smtps_port,
        "imap": settings.imap_port,
        "imaps": settings.imaps_port,
        "mx": settings.mx_port,
    }
    return {name: port for name, port in wanted.items() if port is not None}


def bind_all(settings: Settings) -> dict[str, socket.socket]:
    """Every listener of the settings, bound and listening (all or none)."""
    bound: dict[str, socket.socket] = {}
    try:
        for name, port in ports(settings).items():
            bound[name] = bind_tcp(settings.host, port, settings.listen_backlog, name)
    except BaseException:
        for sock in bound.values():
            sock.close()
        raise
    return bound


def handed_down(sockets: Mapping[str, socket.socket]) -> str:
    """How a worker's command line names the sockets it inherits: `http=5,smtp=6,…`."""
    return ",".join(f"{name}={sock.fileno()}" for name, sock in sockets.items())


def inherited(spec: str) -> dict[str, socket.socket]:
    """The sockets `handed_down` named, as this (worker) process's own objects."""
    found: dict[str, socket.socket] = {}
    for item in spec.split(","):
        name, _, number = item.partition("=")
        if name not in NAMES or not number.isdigit():
            raise ValueError(f"not a listening socket: {item!r}")
        sock = socket.socket(fileno=int(number))
        sock.setblocking(False)
        found[name] = sock
    return found


def listen_for(settings: Settings, name: str) -> Listen:
    """How the listener `name` (smtp, imaps, mx…) accepts connections."""
    if name in settings.proxy_protocol_listeners:
        return ProxiedListen(name.upper(), settings.trusted_proxy_networks)
    return listen_directly


def mail_listeners(settings: Settings, ports: Mapping[str, int | None]) -> list[Listener]:
    """The SMTP and IMAP listeners at `ports` (by name, "SMTP" to "IMAPS"; None: not
    served) as a probe from this machine reaches them: the implicit-TLS ones in TLS
    from the first byte, and with a PROXY header first where they expect one from here
    (this machine is a trusted proxy)."""
    host = connect_host(settings.host)
    trusted = is_trusted(host, settings.trusted_proxy_networks)
    return [
        Listener(
            name,
            host,
            port,
            tls=name.endswith("S"),
            proxy_header=trusted and name.lower() in settings.proxy_protocol_listeners,
        )
        for name, port in ports.items()
        if port is not None
    ]

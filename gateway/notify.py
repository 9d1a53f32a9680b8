"""systemd's readiness protocol (sd_notify(3)) in a few lines, with no dependency.

A unit of `Type=notify` is "started" only when the service sends `READY=1` as a
datagram to the socket named by `$NOTIFY_SOCKET`, so units ordered after the
gateway (a bridge, a health check) start once HTTP, SMTP and IMAP all accept
connections, not when the process merely exists. `STOPPING=1` tells systemd the
graceful shutdown has begun. A name starting with `@` is in the abstract
namespace (a leading NUL byte). Without `$NOTIFY_SOCKET` (not under systemd)
every call does nothing.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger("agentmail")


def notify(state: str) -> bool:
    """Send one state line (`READY=1`, `STOPPING=1`, `STATUS=...`); True when sent."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)  # a full queue is a warning, never a stalled loop
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as error:  # systemd gone or a wrong path: the service runs on regardless
        log.warning("could not notify the service manager at %s: %s", address, error)
        return False
    return True

"""Ports for test servers that are told their port before they bind it, or stop and
start again on it.

A port the kernel hands out for `bind(port 0)` lies in the ephemeral range
(`/proc/sys/net/ipv4/ip_local_port_range`), the range every outgoing connection
takes its source port from: a port found free that way can be some other test's
source port by the time the server binds it, and a server stopped for an outage
test can find its port so held when it starts again (SeaweedFS's filer did, in CI).
These ports are drawn below that range, where only an explicit bind lands, and each
is checked free when drawn. A server that can bind port 0 itself and say what it
got needs none of this.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Collection
from pathlib import Path

LOWEST = 10000  # below it sit the well-known services a machine may run
_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_draw = random.SystemRandom()


def ephemeral_start() -> int:
    """The first port of the kernel's ephemeral range (32768 where it cannot be read)."""
    try:
        return int(_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def steady_ports(
    count: int, host: str = "127.0.0.1", offset: int = 0, avoid: Collection[int] = ()
) -> list[int]:
    """`count` distinct free ports on `host` below the ephemeral range, none in `avoid`.
    With `offset`, each port's `port + offset` is free too and apart from the others (a
    server that derives a second port that way, as SeaweedFS does for gRPC)."""
    top = ephemeral_start() - offset
    if top - LOWEST < count * 4:
        raise RuntimeError(f"too few ports below {ephemeral_start()} for {count} with +{offset}")
    chosen: list[int] = []
    taken: set[int] = set(avoid)
    for _ in range(count * 200):
        port = _draw.randrange(LOWEST, top)
        pair = {port, port + offset}
        if pair & taken or not all(_bindable(host, p) for p in pair):
            continue
        chosen.append(port)
        taken |= pair
        if len(chosen) == count:
            return chosen
    raise RuntimeError(f"no {count} free ports on {host} below {ephemeral_start()}")

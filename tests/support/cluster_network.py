"""Where the cluster world's replicas live on the network: a namespace each, or a loopback
address each.

As root, each replica is a host of the outside world's kind (outside/netns.py): a
network namespace `amo<slot>-r<n>` with its own interface at 10.28.<slot>.1<n>, joined
by a veth pair to a switch that the root namespace joins at 10.28.<slot>.1 — so a
replica has nothing of the machine's but that link. The replicas reach the services
there: SeaweedFS binds that address itself; PostgreSQL, which listens on 127.0.0.1
alone, through a forwarder process listening there (tcp_forward.py). Every replica
binds the same ports on its own address, so a restarted one comes back where nginx
expects it. nginx reaches them from an address of its own, .2 on that link (so the
replicas can trust it alone for the PROXY protocol). Without root, the replicas bind
127.0.0.2 to .4 on free ports and reach the services on 127.0.0.1, and nginx comes from
127.0.0.5: separate addresses on one network stack.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from tests.support.outside import netns
from tests.support.ports import steady_ports

CHECKOUT = Path(__file__).resolve().parents[2]
PORTS = (8180, 2525, 1143)  # HTTP, SMTP, IMAP of every replica in its namespace
SWITCH_HOST = 1
BALANCER_HOST = 2  # a second address of the root namespace's link: nginx's, alone


@dataclass(frozen=True, slots=True)
class Network:
    services_host: str  # where the replicas reach PostgreSQL and SeaweedFS
    hosts: tuple[str, ...]  # each replica's address
    ports: tuple[tuple[int, int, int], ...]  # each replica's HTTP, SMTP and IMAP ports
    namespaces: tuple[str | None, ...]
    # The address nginx reaches the replicas from (`proxy_bind`): the replicas trust it
    # for the PROXY protocol and X-Forwarded-For, and no test client connects from it.
    balancer: str

    def command(self, replica: int) -> tuple[str, ...]:
        """What runs a program inside the replica's namespace (nothing, on loopback)."""
        namespace = self.namespaces[replica]
        return () if namespace is None else ("ip", "netns", "exec", namespace)


def namespaces_available() -> bool:
    """As root with `ip`, unless AGENTMAIL_TEST_CLUSTER_LOOPBACK=1 asks for the loopback
    addresses (how a run as root tries the world of a machine without namespaces)."""
    if os.environ.get("AGENTMAIL_TEST_CLUSTER_LOOPBACK") == "1":
        return False
    return os.geteuid() == 0 and shutil.which("ip") is not None


async def _forwarder(listen: str, port: int, target: str) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.tcp_forward", listen, str(port), target, str(port),
        cwd=CHECKOUT, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    async with asyncio.timeout(30):
        line = await process.stdout.readline()
    assert line.strip() == b"forwarding", line
    return process


@asynccontextmanager
async def _namespaces(count: int, database: tuple[str, int]) -> AsyncIterator[Network]:
    slot = await asyncio.to_thread(netns.take_slot)
    forwarder: asyncio.subprocess.Process | None = None
    try:
        await netns.clear_slot(slot)
        await netns.add_switch(slot, SWITCH_HOST)
        names = []
        for number in range(1, count + 1):
            host = f"r{number}"
            await netns.add_host(slot, host, 10 + number, slot.address(SWITCH_HOST))
            names.append(slot.namespace(host))
        services = slot.address(SWITCH_HOST)
        balancer = slot.address(BALANCER_HOST)
        await netns.ip("addr", "add", f"{balancer}/24", "dev", slot.prefix)
        forwarder = await _forwarder(services, database[1], database[0])
        yield Network(
            services,
            tuple(slot.address(10 + n) for n in range(1, count + 1)),
            (PORTS,) * count,
            tuple(names),
            balancer,
        )
    finally:
        if forwarder is not None and forwarder.returncode is None:
            forwarder.kill()
            await forwarder.wait()
        await netns.clear_slot(slot)
        netns.release_slot(slot)


@asynccontextmanager
async def replica_network(count: int, database: tuple[str, int]) -> AsyncIterator[Network]:
    """The replicas' addresses for `count` replicas, and where they reach the database
    (`database` is its host and port as this process reaches it)."""
    if namespaces_available():
        async with _namespaces(count, database) as network:
            yield network
        return
    hosts = tuple(f"127.0.0.{n}" for n in range(2, count + 2))
    ports = tuple(cast(tuple[int, int, int], tuple(steady_ports(3, h))) for h in hosts)
    yield Network("127.0.0.1", hosts, ports, (None,) * count, f"127.0.0.{count + 2}")

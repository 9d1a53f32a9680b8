"""The outside world's network: one network namespace per host, wired to a switch.

Each host (`mx`, `imap`, `dns`) is a namespace `amo<slot>-<host>` with one interface,
`eth0`, at 10.28.<slot>.<n>/24 and no default route, so nothing in it can reach an
address outside the test network (a connect fails with ENETUNREACH at once). The hosts
and the root namespace (where the gateway under test runs, at 10.28.<slot>.1 on the
interface `amo<slot>`) meet on a bridge inside a namespace of its own (`amo<slot>-sw`):
a fresh namespace has no firewall rules, so the machine's own (br_netfilter, a FORWARD
policy) never touch the traffic between hosts.

A slot (the third octet and the names) belongs to one world at a time on the whole
machine, other checkouts' runs and pytest-xdist workers included: it is an exclusive
`flock` on /run/agentmail-outside/slot-<n>.lock, released by the kernel when the
process ends however it ends. Whoever takes a slot first removes what a killed run may
have left under its names.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

T = TypeVar("T")

LOCKS = Path("/run/agentmail-outside")
SLOTS = range(1, 250)
CLONE_NEWNET = 0x40000000
NETNS_ETC = Path("/etc/netns")  # `ip netns exec` binds /etc/netns/<ns>/* over /etc/*
_libc = ctypes.CDLL(None, use_errno=True)


class NetworkError(RuntimeError):
    """An `ip` command of the world's set-up failed."""


@dataclass(frozen=True, slots=True)
class Slot:
    number: int
    lock: IO[str]

    @property
    def prefix(self) -> str:
        return f"amo{self.number}"

    def address(self, host: int) -> str:
        return f"10.28.{self.number}.{host}"

    def namespace(self, host: str) -> str:
        return f"{self.prefix}-{host}"


def take_slot() -> Slot:
    """The first free slot, held until `release_slot` or the process's end."""
    LOCKS.mkdir(parents=True, exist_ok=True)
    for number in SLOTS:
        lock = (LOCKS / f"slot-{number}.lock").open("w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            continue
        return Slot(number, lock)
    raise NetworkError(f"all {len(SLOTS)} outside-world slots are taken")


def release_slot(slot: Slot) -> None:
    slot.lock.close()


async def ip(*args: str, check: bool = True) -> str:
    """Run `ip ARGS`; its stdout, or NetworkError with its stderr."""
    process = await asyncio.create_subprocess_exec(
        "ip", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if check and process.returncode != 0:
        raise NetworkError(f"ip {' '.join(args)}: {err.decode(errors='replace').strip()}")
    return out.decode()


async def namespace_pids(namespace: str) -> list[int]:
    return [int(pid) for pid in (await ip("netns", "pids", namespace, check=False)).split()]


async def kill_namespace_processes(namespace: str) -> None:
    """SIGKILL every process left in the namespace, and wait until they are gone."""
    for _ in range(200):
        pids = await namespace_pids(namespace)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.02)
    raise NetworkError(f"processes in {namespace} survive SIGKILL: {pids}")


async def clear_slot(slot: Slot) -> None:
    """Remove every namespace, link and /etc/netns directory under the slot's names."""
    for line in (await ip("netns", "list")).splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(f"{slot.prefix}-"):
            await kill_namespace_processes(name)
            await ip("netns", "delete", name, check=False)
    await ip("link", "delete", slot.prefix, check=False)
    await asyncio.to_thread(_remove_etc, slot)


def _remove_etc(slot: Slot) -> None:
    for directory in NETNS_ETC.glob(f"{slot.prefix}-*"):
        shutil.rmtree(directory, ignore_errors=True)


async def add_switch(slot: Slot, gateway_host: int) -> None:
    """The switch namespace with its bridge, and the root namespace's port on it."""
    switch = slot.namespace("sw")
    await ip("netns", "add", switch)
    await ip("-n", switch, "link", "add", "br0", "type", "bridge")
    await ip("-n", switch, "link", "set", "br0", "up")
    await ip("link", "add", slot.prefix, "type", "veth", "peer", "name", "gw", "netns", switch)
    await ip("-n", switch, "link", "set", "gw", "master", "br0", "up")
    await ip("addr", "add", f"{slot.address(gateway_host)}/24", "dev", slot.prefix)
    await ip("link", "set", slot.prefix, "up")


async def add_host(slot: Slot, host: str, number: int, nameserver: str) -> str:
    """A host's namespace on the switch at 10.28.<slot>.<number>; its resolver is the
    test DNS server. Returns the namespace's name."""
    namespace, switch = slot.namespace(host), slot.namespace("sw")
    await ip("netns", "add", namespace)
    etc = NETNS_ETC / namespace
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "resolv.conf").write_text(f"nameserver {nameserver}\noptions timeout:2 attempts:3\n")
    await ip("-n", namespace, "link", "set", "lo", "up")
    await ip(
        "-n",
        switch,
        "link",
        "add",
        host,
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        namespace,
    )
    await ip("-n", switch, "link", "set", host, "master", "br0", "up")
    await ip("-n", namespace, "addr", "add", f"{slot.address(number)}/24", "dev", "eth0")
    await ip("-n", namespace, "link", "set", "eth0", "up")
    return namespace


def _write_resolv_conf(namespace: str, nameserver: str) -> None:
    etc = NETNS_ETC / namespace
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "resolv.conf").write_text(f"nameserver {nameserver}\noptions timeout:2 attempts:3\n")


def in_namespace(namespace: str, work: Callable[[], T]) -> T:
    """`work()` run by a thread of its own that has entered the namespace: a socket it
    makes stays in that namespace for good, whichever thread uses it afterwards."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            with Path(f"/run/netns/{namespace}").open() as target:
                if _libc.setns(target.fileno(), CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns into {namespace}")
            outcome.append(work())
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=run, name=f"netns-{namespace}")
    thread.start()
    thread.join()  # the thread ends: no pool thread is left in another namespace
    if failure:
        raise failure[0]
    return outcome[0]


def socket_in(namespace: str, kind: int = socket.SOCK_STREAM) -> socket.socket:
    """A non-blocking IPv4 socket of the namespace, for asyncio."""

    def make() -> socket.socket:
        sock = socket.socket(socket.AF_INET, kind)
        sock.setblocking(False)
        return sock

    return in_namespace(namespace, make)

"""Security issue, hole 9: every listener queues as many connections as the setting says.

asyncio's `create_server`/`start_server` listen again with their own backlog (100)
unless told otherwise, so a burst of 500 connections lost 92 SMTP and ~200 IMAP
greetings. The kernel reports a listening socket's backlog and its accept queue
(`ss -ltn`: Send-Q and Recv-Q; `ss` is iproute2's, scripts/ensure-services.sh
installs it). Nothing is stored, so on SQLite alone.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.support.gateway import running_gateway
from tests.support.tls import Certificate

BURST = 500


def _listening(port: int) -> tuple[int, int]:
    """(accept queue, backlog) of the socket listening on 127.0.0.1:`port`."""
    ss = shutil.which("ss")
    assert ss is not None, "ss (iproute2) is missing: run scripts/ensure-services.sh"
    out = subprocess.run(
        [ss, "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True
    ).stdout
    [line] = [row for row in out.splitlines() if row.strip()]
    _, queued, backlog, *_ = line.split()
    return int(queued), int(backlog)


def _somaxconn() -> int:
    return int(Path("/proc/sys/net/core/somaxconn").read_text())


async def test_every_listener_has_the_configured_backlog(tmp_path: Path) -> None:
    certificate = Certificate(tmp_path / "tls", "localhost", "127.0.0.1")
    async with running_gateway(
        f"sqlite:///{tmp_path / 'agentmail.db'}",
        tmp_path / "data",
        listen_backlog=777,
        tls_cert=certificate.cert,
        tls_key=certificate.key,
        smtps_port=0,
        imaps_port=0,
    ) as gateway:
        ports = {
            "http": gateway.http_port,
            "smtp": gateway.smtp_port,
            "smtps": gateway.smtps_port,
            "imap": gateway.imap_port,
            "imaps": gateway.imaps_port,
        }
        expected = min(777, _somaxconn())  # the kernel caps every backlog at somaxconn
        backlogs = {name: _listening(port)[1] for name, port in ports.items() if port}
        assert backlogs == dict.fromkeys(ports, expected)


async def test_a_burst_of_connections_all_get_their_greetings(tmp_path: Path) -> None:
    """The burst arrives while the server is busy (its loop blocked): the kernel
    queues all of it, and once the server runs again every client is greeted."""
    async with running_gateway(
        f"sqlite:///{tmp_path / 'agentmail.db'}",
        tmp_path / "data",
        imap_max_connections_per_address=2 * BURST,
        smtp_max_connections_per_address=2 * BURST,
    ) as gateway:
        assert gateway.settings.listen_backlog == 2048  # the default serves this burst
        for port, greeting in ((gateway.imap_port, b"* OK "), (gateway.smtp_port, b"220 ")):
            clients = _burst(port)  # blocks this loop, the gateway's too, on purpose
            try:
                assert _queued(port, BURST) == BURST
                greetings = await asyncio.gather(*(_greeting(c) for c in clients))
                assert [g[: len(greeting)] for g in greetings] == [greeting] * BURST
            finally:
                for client in clients:
                    client.close()


def _burst(port: int) -> list[socket.socket]:
    clients = []
    for _ in range(BURST):
        client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
        clients.append(client)
    return clients


def _queued(port: int, wanted: int) -> int:
    """The accept queue once the kernel has finished the handshakes (or after 5 s)."""
    deadline = time.monotonic() + 5.0
    queued, _ = _listening(port)
    while queued < wanted and time.monotonic() < deadline:
        time.sleep(0.05)
        queued, _ = _listening(port)
    return queued


async def _greeting(client: socket.socket) -> bytes:
    reader, writer = await asyncio.open_connection(sock=client)
    try:
        return await asyncio.wait_for(reader.readline(), 60)
    finally:
        writer.close()

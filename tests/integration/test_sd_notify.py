"""Under systemd (`Type=notify`) READY=1 is sent once every listener is up.

`agentmail serve` runs with `$NOTIFY_SOCKET` naming a datagram socket of the
test, as systemd would set it; when READY=1 arrives, HTTP, SMTP and IMAP must
already accept connections (nothing is started after it), and SIGTERM sends
STOPPING=1 before the process ends.
"""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import sys
from pathlib import Path

import httpx

from tests.integration.test_cli import _env


async def _datagram(sock: socket.socket) -> str:
    loop = asyncio.get_running_loop()
    data = await asyncio.wait_for(loop.sock_recv(sock, 4096), 30)
    return data.decode()


async def _accepts(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    await writer.wait_closed()
    return True


async def test_ready_is_sent_after_every_listener_is_up(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(path))
    receiver.setblocking(False)
    ports = {f"AGENTMAIL_{name}_PORT": "0" for name in ("HTTP", "SMTP", "IMAP")}
    env = _env(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "data", **ports)
    env["NOTIFY_SOCKET"] = str(path)
    env["ADMIN_PASSWORD"] = "admin-password"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "gateway",
        "serve",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdout is not None
    try:
        ready = await _datagram(receiver)
        assert "READY=1" in ready.splitlines(), ready
        assert f"MAINPID={process.pid}" in ready.splitlines(), ready
        # The banner is printed before READY=1, so the bound ports are known by now.
        banner = (await asyncio.wait_for(process.stdout.read(4096), 10)).decode()
        found = {
            name: re.search(rf"{pattern}\s*127\.0\.0\.1:(\d+)", banner)
            for name, pattern in (("http", "http://"), ("smtp", "SMTP"), ("imap", "IMAP"))
        }
        assert all(found.values()), banner
        for match in found.values():
            assert match is not None
            assert await _accepts(int(match.group(1)))
        http = found["http"]
        assert http is not None
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http.group(1)}") as client:
            assert (await client.get("/readyz")).status_code == 200
        process.send_signal(signal.SIGTERM)
        assert "STOPPING=1" in (await _datagram(receiver)).splitlines()
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        receiver.close()

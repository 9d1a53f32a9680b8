"""The clients `imap_fetch.py` times: an aioimaplib session, an mbsync pull, IDLE push.

The same code runs against the gateway and against Dovecot, so whatever the
client costs (aioimaplib parsing a thousand FETCH lines, mbsync writing files)
is in both figures alike.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aioimaplib

TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class Server:
    """Where an IMAP server listens (plain IMAP on loopback) and who logs in."""

    name: str
    port: int
    user: str
    password: str


@dataclass(frozen=True, slots=True)
class SessionTimes:
    """Seconds of each step of one session, and how many messages FETCH returned."""

    login: float
    select: float
    fetch: float
    fetched: int

    @property
    def total(self) -> float:
        return self.login + self.select + self.fetch


async def open_client(server: Server) -> aioimaplib.IMAP4:
    client = aioimaplib.IMAP4("127.0.0.1", server.port, timeout=TIMEOUT)
    await client.wait_hello_from_server()
    return client


def _ok(response: aioimaplib.Response, what: str) -> aioimaplib.Response:
    if response.result != "OK":
        raise RuntimeError(f"{what}: {response.result} {response.lines[-1:]}")
    return response


async def fetch_session(server: Server, span: str, items: str) -> SessionTimes:
    """Connect, LOGIN, SELECT INBOX, FETCH `span` `items`, LOGOUT; the steps timed."""
    started = time.perf_counter()
    client = await open_client(server)
    _ok(await client.login(server.user, server.password), "LOGIN")
    logged_in = time.perf_counter()
    _ok(await client.select("INBOX"), "SELECT")
    selected = time.perf_counter()
    fetched = _ok(await client.fetch(span, items), "FETCH")
    done = time.perf_counter()
    await client.logout()
    count = sum(1 for line in fetched.lines if isinstance(line, bytes) and b" FETCH (" in line)
    return SessionTimes(logged_in - started, selected - logged_in, done - selected, count)


async def select_time(server: Server) -> tuple[float, int]:
    """Seconds of SELECT INBOX alone (after LOGIN), and the EXISTS it reported."""
    client = await open_client(server)
    try:
        _ok(await client.login(server.user, server.password), "LOGIN")
        started = time.perf_counter()
        response = _ok(await client.select("INBOX"), "SELECT")
        seconds = time.perf_counter() - started
    finally:
        await client.logout()
    exists = 0
    for line in response.lines:
        text = line.decode() if isinstance(line, bytes) else str(line)
        if text.endswith(" EXISTS"):
            exists = int(text.split()[0])
    return seconds, exists


MBSYNCRC = """IMAPAccount far
Host 127.0.0.1
Port {port}
User {user}
Pass {password}
SSLType None
AuthMechs PLAIN

IMAPStore far
Account far

MaildirStore near
Path {maildir}/
Inbox {maildir}/INBOX
SubFolders Verbatim

Channel pull
Far :far:
Near :near:
Patterns {patterns}
Create Near
Sync Pull
Expunge None
SyncState *
"""


def mbsync_pull(server: Server, patterns: str = "INBOX") -> tuple[float, int]:
    """A full pull into an empty Maildir (sync, run it in a thread): seconds and files."""
    mbsync = shutil.which("mbsync")
    if mbsync is None:
        raise RuntimeError("mbsync (isync) is not installed")
    with tempfile.TemporaryDirectory(prefix="agentmail-mbsync-") as tmp:
        root = Path(tmp)
        maildir = root / "mail"
        maildir.mkdir()
        config = root / "mbsyncrc"
        config.write_text(
            MBSYNCRC.format(
                port=server.port,
                user=server.user,
                password=server.password,
                maildir=maildir,
                patterns=patterns,
            )
        )
        started = time.perf_counter()
        done = subprocess.run(
            [mbsync, "--config", str(config), "--all", "--quiet"],
            capture_output=True,
            timeout=600,
            check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"mbsync against {server.name} failed: {done.stderr.decode()}")
        files = sum(
            1
            for path in maildir.rglob("*")
            if path.is_file() and path.parent.name in ("cur", "new")
        )
    return seconds, files


async def idle_latencies(
    server: Server, send: Callable[[int], Awaitable[None]], count: int
) -> list[float]:
    """Seconds from before `send(i)` (a REST send) until the idling client sees EXISTS."""
    client = await open_client(server)
    _ok(await client.login(server.user, server.password), "LOGIN")
    selected = _ok(await client.select("INBOX"), "SELECT")
    exists = next(
        int(line.split()[0])
        for line in (x.decode() if isinstance(x, bytes) else str(x) for x in selected.lines)
        if line.endswith(" EXISTS")
    )
    idle = await client.idle_start(timeout=TIMEOUT * 10)
    latencies: list[float] = []
    try:
        for number in range(count):
            started = time.perf_counter()
            await send(number)
            while True:
                push = await client.wait_server_push(timeout=30.0)
                if not isinstance(push, list):
                    raise RuntimeError(f"no EXISTS pushed for mail {number}: {push!r}")
                lines = [x.decode() if isinstance(x, bytes) else str(x) for x in push]
                counts = [int(x.split()[0]) for x in lines if x.endswith(" EXISTS")]
                if counts and max(counts) > exists:
                    exists = max(counts)
                    break
            latencies.append(time.perf_counter() - started)
    finally:
        client.idle_done()
        await asyncio.wait_for(idle, 30.0)
        await client.logout()
    return latencies

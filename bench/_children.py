"""The servers `rest_loop.py` measures, each in a process of its own, and the fresh database.

The gateway (`agentmail serve`, optionally under a profiler) and the hello-world
baseline (`_hello.py`) run as child processes so that their CPU can be read from
/proc apart from the client's. This module starts them, waits until they answer,
stops them, reads their CPU and the machine's, and creates and drops the fresh
PostgreSQL database that `--database-url` asks for.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
from sqlalchemy.engine import make_url

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
VENV_BIN = Path(sys.executable).parent


# ---------------------------------------------------------------- ports and CPU


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_tree_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a process and its descendants (Linux /proc), else None.

    Descendants that ended and were waited for count too (their parent's cutime and
    cstime): Dovecot's `imap` processes end with their connection."""
    tick = os.sysconf("SC_CLK_TCK")
    total, pending, seen = 0, [pid], False
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
            seen = True
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total / tick if seen else None


def machine_busy_cpu() -> float | None:
    """CPU seconds all processes on the machine have used since boot (/proc/stat), else None."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- child processes


async def start_py_spy(pid: int, output: Path, seconds: float) -> asyncio.subprocess.Process:
    """py-spy sampling a process for `seconds`: collapsed stacks of the thread holding the
    GIL (`--gil --format raw`), read with `_report.print_py_spy` or flamegraph.pl. py-spy
    (`pip install py-spy`, not a dependency) from PY_SPY, PATH or the virtualenv."""
    py_spy = os.environ.get("PY_SPY") or shutil.which("py-spy") or str(VENV_BIN / "py-spy")
    argv = [py_spy, "record", "--pid", str(pid), "--gil", "--format", "raw", "--rate", "250"]
    argv += ["--duration", str(max(1, int(seconds))), "--output", str(output)]
    return await asyncio.create_subprocess_exec(*argv, stdout=subprocess.DEVNULL)


@dataclass
class Child:
    """A server in its own process, and where its output goes."""

    name: str
    proc: subprocess.Popen[bytes]
    base_url: str
    log: Path

    def cpu(self) -> float | None:
        return process_tree_cpu(self.proc.pid)

    async def wait_healthy(self, path: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient(base_url=self.base_url, timeout=2.0) as client:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"{self.name} exited ({self.proc.returncode}):\n{self.tail()}"
                    )
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(path)).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{self.name} not healthy after {timeout:.0f}s:\n{self.tail()}"
                    )
                await asyncio.sleep(0.1)

    async def stop(self, timeout: float = 30.0) -> None:
        """SIGINT to the process group we started (a profiler and its gateway alike)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGINT)
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if self.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def spawn(name: str, argv: list[str], env: dict[str, str], log: Path, port: int) -> Child:
    handle = log.open("wb")
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )
    handle.close()
    return Child(name, proc, f"http://127.0.0.1:{port}", log)


def gateway_argv(args: argparse.Namespace, port: int, data_dir: Path) -> list[str]:
    command = shlex.split(args.gateway_command) if args.gateway_command else []
    serve = [*(command or [str(VENV_BIN / "agentmail")]), "serve", "--http-port", str(port)]
    serve += ["--data-dir", str(data_dir)]
    if args.profile == "cprofile":
        return [sys.executable, "-m", "cProfile", "-o", str(args.profile_out), *serve]
    if args.profile == "py-spy":
        py_spy = shutil.which("py-spy") or os.environ.get("PY_SPY", "")
        if not py_spy:
            raise SystemExit("--profile py-spy: put py-spy on PATH (or set PY_SPY=/path/to/py-spy)")
        # --gil: sample only the thread holding the GIL, i.e. what keeps the one
        # core a single-process asyncio server can use busy (idle waits drop out).
        record = [py_spy, "record", "--rate", "250", "--format", "raw", "--nonblocking", "--gil"]
        return [*record, "--output", str(args.profile_out), "--", *serve]
    return serve


def gateway_env(admin_password: str, database_url: str = "") -> dict[str, str]:
    """The environment of a benchmarked gateway: a known admin, cheap bcrypt,
    unbuffered output, and `database_url` (empty: SQLite in its data dir)."""
    env = {
        **os.environ,
        "ADMIN_USER": "admin",
        "ADMIN_PASSWORD": admin_password,
        "AGENTMAIL_BCRYPT_ROUNDS": "4",
        # Every load client is on loopback: one address, many senders.
        "AGENTMAIL_HTTP_CONNECTIONS_PER_ADDRESS": "100000",
        # Ports the bench does not name are chosen by the OS: on a shared machine the
        # defaults (2525, 1143) may be another gateway's.
        "AGENTMAIL_SMTP_PORT": "0",
        "AGENTMAIL_IMAP_PORT": "0",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


async def fresh_database(server_url: str | None, sqlite_label: str) -> tuple[str, str]:
    """(URL of a fresh PostgreSQL database on `server_url`, or "" for SQLite; a line
    saying which database the run uses)."""
    if not server_url:
        return "", f"SQLite {sqlite3.sqlite_version} ({sqlite_label})"
    url, version = await create_pg_database(server_url)
    return url, f"PostgreSQL {version} (fresh database {make_url(url).database})"


# ---------------------------------------------------------------- PostgreSQL


async def _pg_admin(url: str) -> asyncpg.Connection:
    parsed = make_url(url)
    return await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        database=parsed.database or "postgres",  # the maintenance database
    )


async def create_pg_database(url: str) -> tuple[str, str]:
    """A fresh empty database on the server of `url`; returns its URL and the server version."""
    name = f"agentmail_bench_{uuid.uuid4().hex[:10]}"
    conn = await _pg_admin(url)
    try:
        version = str(await conn.fetchval("SHOW server_version"))
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return make_url(url).set(database=name).render_as_string(hide_password=False), version


async def drop_pg_database(admin_url: str, url: str) -> None:
    conn = await _pg_admin(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        await conn.close()

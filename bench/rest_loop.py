"""The REST + SSE collaboration loop under load, beside a hello-world FastAPI baseline.

    .venv/bin/python bench/rest_loop.py [--mails 2000 --agents 50 --senders 20]
                                        [--database-url postgresql://postgres@127.0.0.1:5432/test]

1. Starts the real gateway (`agentmail serve`) as its own process on a fresh data
   directory (or a fresh PostgreSQL database) and a free port.
2. Over HTTP: logs in as admin, creates a human sender with a user key, issues
   agent keys and registers `agent00`..`agentNN` (one workspace each), and opens
   one SSE stream per agent.
3. `--senders` concurrent coroutines send `--mails` mails over
   `POST /api/v1/me/mail/send`, rotating over the agents. Each SSE reader notes
   when `new_mail` arrives. Reports sends/s, POST latency and send→SSE delivery
   latency, and checks that every mail reached exactly its recipient, once.
4. The baseline: `bench/_hello.py` (hello-world FastAPI, served the way the
   gateway serves its app, in its own process) gets the same requests from the
   same client setup. Both servers run side by side and the load alternates
   between them in `--rounds` rounds, so both see the same machine.

Exit status 1 when a mail was lost, duplicated or misdelivered, or a request
failed. Missing a goal is not a failure: this is a benchmark, not a test.
See bench/README.md for how to read the output.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import os
import platform
import pstats
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from sqlalchemy.engine import make_url

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
VENV_BIN = Path(sys.executable).parent
ADMIN_PASSWORD = "bench-admin-password"
SENDER = "bench-sender"
SENDER_PASSWORD = "bench-sender-password"
API = "/api/v1"
GOAL_P99_MS = 50.0
GOAL_RATIO = 0.25
CLIENT_BOUND_CPU = 0.85  # a client process busier than this is probably the limit
OTHERS_BUSY_CPU = 0.25  # other processes busier than this make the figures noisy

console = Console(highlight=False)
if not console.is_terminal:
    console.width = 110  # a log or a pipe: wide enough that the tables do not wrap


# ---------------------------------------------------------------- small helpers


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of unsorted values; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_tree_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a process and its descendants (Linux /proc), else None."""
    tick = os.sysconf("SC_CLK_TCK")
    total, pending, seen = 0, [pid], False
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
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


def body_text(size: int) -> str:
    words = (
        "please look at the failing health check in the staging cluster and tell me "
        "what you find before you change anything "
    )
    return (words * (size // len(words) + 1))[:size]


def ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.1f}"


# ---------------------------------------------------------------- child processes


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


# ---------------------------------------------------------------- PostgreSQL


async def _pg_admin(url: str) -> asyncpg.Connection:
    parsed = make_url(url)
    return await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        database=parsed.database or "test",
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


# ---------------------------------------------------------------- SSE readers


@dataclass
class Deliveries:
    """Every `new_mail` seen on any stream: mail_id → [(agent index, perf time, wall time)]."""

    seen: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)
    server_stamp: dict[str, float] = field(default_factory=dict)
    count: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, agent: int, payload: dict[str, Any], perf: float, wall: float) -> None:
        mail_id = str(payload.get("mail_id"))
        self.seen.setdefault(mail_id, []).append((agent, perf, wall))
        with contextlib.suppress(KeyError, TypeError, ValueError):
            self.server_stamp[mail_id] = datetime.fromisoformat(payload["created_at"]).timestamp()
        self.count += 1
        self.changed.set()

    async def wait_for(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.count < count:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return True


async def read_stream(
    client: httpx.AsyncClient,
    agent: int,
    key: str,
    deliveries: Deliveries,
    connected: asyncio.Event,
) -> None:
    """One agent's SSE stream: notes each `new_mail` the moment its blank line arrives."""
    async with client.stream(
        "GET",
        f"{API}/events/stream",
        headers={"Authorization": f"Bearer {key}"},
        timeout=httpx.Timeout(15.0, read=None),
    ) as response:
        if response.status_code != 200:
            raise RuntimeError(f"SSE for agent {agent}: {response.status_code}")
        event, data = "message", []
        async for line in response.aiter_lines():
            if not line:
                if event == "new_mail" and data:
                    perf, wall = time.perf_counter(), time.time()
                    deliveries.add(agent, json.loads("\n".join(data)), perf, wall)
                event, data = "message", []
            elif line.startswith(":"):
                if line[1:].strip() == "connected":
                    connected.set()
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))


# ---------------------------------------------------------------- load


@dataclass
class Sent:
    index: int  # the mail's number: its recipient is agent (index % agents)
    start_perf: float
    start_wall: float
    end_perf: float
    status: int
    result: dict[str, Any]

    @property
    def mail_id(self) -> str:
        return str(self.result.get("mail_id"))


@dataclass
class Load:
    """Timed sending against one server: what the senders saw, and the CPU used meanwhile."""

    sent: list[Sent] = field(default_factory=list)
    wall: float = 0.0  # first POST start → last POST response (summed over rounds)
    cpu_interval: float = 0.0  # the seconds the CPU figures cover (for the gateway: → delivery)
    client_cpu: float = 0.0
    server_cpu: float | None = 0.0
    machine_cpu: float | None = 0.0  # every process on the machine, ours included
    loop_lag: list[float] = field(default_factory=list)
    round_rates: list[float] = field(default_factory=list)
    idle_rtt: list[float] = field(default_factory=list)

    def add(self, other: Load) -> None:
        """Fold one round into the total."""
        self.sent += other.sent
        self.wall += other.wall
        self.cpu_interval += other.cpu_interval
        self.client_cpu += other.client_cpu
        self.server_cpu = _plus(self.server_cpu, other.server_cpu)
        self.machine_cpu = _plus(self.machine_cpu, other.machine_cpu)
        self.loop_lag += other.loop_lag
        self.round_rates.append(other.rate)

    @property
    def ok(self) -> list[Sent]:
        return [s for s in self.sent if s.status == 200]

    @property
    def rate(self) -> float:
        return len(self.sent) / self.wall if self.wall > 0 else math.nan

    def post_latency(self, p: float) -> float:
        return percentile([s.end_perf - s.start_perf for s in self.sent], p)

    def share(self, cpu: float | None) -> float | None:
        """CPU seconds as a fraction of one core over the measured interval."""
        if cpu is None or self.cpu_interval <= 0:
            return None
        return cpu / self.cpu_interval

    def others_cpu(self) -> float | None:
        """CPU used meanwhile by processes other than the client and the server."""
        if self.machine_cpu is None or self.server_cpu is None:
            return None
        return max(0.0, self.machine_cpu - self.client_cpu - self.server_cpu)


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


async def loop_lag_monitor(lags: list[float], stop: asyncio.Event, tick: float = 0.005) -> None:
    """How late this (client) event loop wakes a 5 ms sleeper: a busy client shows here."""
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(tick)
        lags.append(time.perf_counter() - before - tick)


class Senders:
    """The HTTP clients of the senders: one per sender (default), or one shared pool.

    httpx's connection pool costs CPU per request that grows with the number of
    connections it holds: on a 2-CPU machine, 20 workers on one shared client
    spent ~3 ms of client CPU per request against ~1.2 ms with a client each,
    which capped the hello-world baseline near 300 requests/s. A client per
    sender keeps the client cheaper, so the baseline measures the server more.
    """

    def __init__(self, base_url: str, count: int, token: str, *, shared: bool) -> None:
        def client(connections: int) -> httpx.AsyncClient:
            limits = httpx.Limits(
                max_connections=connections, max_keepalive_connections=connections
            )
            return httpx.AsyncClient(
                base_url=base_url,
                headers={"Authorization": f"Bearer {token}"},
                limits=limits,
                timeout=30.0,
            )

        self.count = count
        self.clients = [client(count)] if shared else [client(1) for _ in range(count)]

    def __getitem__(self, worker: int) -> httpx.AsyncClient:
        return self.clients[worker % len(self.clients)]

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


async def send_all(senders: Senders, path: str, items: list[tuple[int, bytes]]) -> list[Sent]:
    """The senders share the items in order; each POST is timed from just before it."""
    results: list[Sent] = []
    queue = iter(items)
    headers = {"content-type": "application/json"}

    async def worker(client: httpx.AsyncClient) -> None:
        for index, body in queue:
            start_perf, start_wall = time.perf_counter(), time.time()
            response = await client.post(path, content=body, headers=headers)
            end_perf = time.perf_counter()
            try:
                result = response.json()
            except ValueError:
                result = {"text": response.text[:200]}
            results.append(
                Sent(index, start_perf, start_wall, end_perf, response.status_code, result)
            )

    await asyncio.gather(*(worker(senders[k]) for k in range(senders.count)))
    return results


async def idle_round_trips(client: httpx.AsyncClient, path: str, count: int = 30) -> list[float]:
    """Sequential GETs on an idle server: the fixed cost of one request, without load."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = await client.get(path)
        times.append(time.perf_counter() - start)
        response.raise_for_status()
    return times


async def timed_load(
    senders: Senders,
    path: str,
    items: list[tuple[int, bytes]],
    server: Child,
    settle: Callable[[list[Sent]], Awaitable[None]] | None = None,
) -> Load:
    """Send `items`, then (for the gateway) wait until they are delivered; measure it all."""
    stop = asyncio.Event()
    lags: list[float] = []
    monitor = asyncio.create_task(loop_lag_monitor(lags, stop))
    cpu_client, cpu_server, cpu_machine = time.process_time(), server.cpu(), machine_busy_cpu()
    first = time.perf_counter()
    sent = await send_all(senders, path, items)
    last = max((s.end_perf for s in sent), default=first)
    if settle is not None:
        await settle(sent)
    interval = time.perf_counter() - first
    client_cpu = time.process_time() - cpu_client
    server_after, machine_after = server.cpu(), machine_busy_cpu()
    stop.set()
    await monitor
    return Load(
        sent=sent,
        wall=last - first,
        cpu_interval=interval,
        client_cpu=client_cpu,
        server_cpu=None
        if cpu_server is None or server_after is None
        else server_after - cpu_server,
        machine_cpu=None
        if cpu_machine is None or machine_after is None
        else machine_after - cpu_machine,
        loop_lag=lags,
    )


def agent_name(i: int) -> str:
    return f"agent{i:02d}"


def mail_items(first: int, count: int, agents: int, size: int, tag: str) -> list[tuple[int, bytes]]:
    """Mail number i goes to agent i % agents; the hello-world gets the very same bytes."""
    text = body_text(size)
    return [
        (
            i,
            json.dumps(
                {
                    "to": f"{agent_name(i % agents)}@ws",
                    "subject": f"{tag} mail {i:05d}",
                    "body": text,
                }
            ).encode(),
        )
        for i in range(first, first + count)
    ]


# ---------------------------------------------------------------- the gateway


def check(response: httpx.Response, what: str, status: int = 200) -> dict[str, Any]:
    if response.status_code != status:
        raise RuntimeError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    result: dict[str, Any] = response.json()
    return result


class GatewayTarget:
    """The real gateway: set up over HTTP, 50 agents listening on SSE, a human sending."""

    path = f"{API}/me/mail/send"

    def __init__(self, args: argparse.Namespace, server: Child) -> None:
        self.args = args
        self.server = server
        self.deliveries = Deliveries()
        self.sent: list[Sent] = []  # every POST, warm-up included
        self.problems: list[str] = []
        self.setup_seconds = math.nan
        self._readers: list[asyncio.Task[None]] = []
        self._sse: httpx.AsyncClient | None = None
        self.senders: Senders | None = None
        self._closed = False

    async def setup(self) -> None:
        started = time.perf_counter()
        args = self.args
        user_key, keys = await self._accounts()
        self._sse = httpx.AsyncClient(
            base_url=self.server.base_url,
            limits=httpx.Limits(max_connections=args.agents + 5, max_keepalive_connections=0),
            timeout=15.0,
        )
        connected = [asyncio.Event() for _ in range(args.agents)]
        self._readers = [
            asyncio.create_task(read_stream(self._sse, i, keys[i], self.deliveries, connected[i]))
            for i in range(args.agents)
        ]
        waiting = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in connected)))
        done, _ = await asyncio.wait(
            [waiting, *self._readers], timeout=30, return_when="FIRST_COMPLETED"
        )
        if waiting not in done:
            waiting.cancel()
            failed = [r for r in self._readers if r in done]
            reason = repr(failed[0].exception()) if failed else "timeout"
            raise RuntimeError(f"SSE streams did not all connect: {reason}")
        self.senders = Senders(
            self.server.base_url, args.senders, user_key, shared=args.shared_client
        )
        self.setup_seconds = time.perf_counter() - started

    async def _accounts(self) -> tuple[str, list[str]]:
        """Admin login, the human sender and its user key, agent keys and registrations."""
        base, agents = self.server.base_url, self.args.agents
        gate = asyncio.Semaphore(10)
        async with httpx.AsyncClient(base_url=base, timeout=30.0) as admin:
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            check(await admin.post(f"{API}/auth/login", json=login), "admin login")
            user = {"name": SENDER, "password": SENDER_PASSWORD, "is_admin": False}
            check(await admin.post(f"{API}/admin/users", json=user), "create sender", 201)

            async def agent_key(i: int) -> str:
                async with gate:
                    body = {"lifecycle": "permanent", "label": f"bench {agent_name(i)}"}
                    answer = await admin.post(f"{API}/admin/agent-keys", json=body)
                    return str(check(answer, "agent key", 201)["key"])

            keys = await asyncio.gather(*(agent_key(i) for i in range(agents)))

        async with httpx.AsyncClient(base_url=base, timeout=30.0) as human:
            login = {"username": SENDER, "password": SENDER_PASSWORD}
            check(await human.post(f"{API}/auth/login", json=login), "sender login")
            body = {"lifecycle": "permanent", "label": "bench"}
            user_key = str(check(await human.post(f"{API}/me/keys", json=body), "key", 201)["key"])

        async with httpx.AsyncClient(base_url=base, timeout=30.0) as plain:

            async def register(i: int) -> None:
                name = agent_name(i)
                body = {
                    "name": name,
                    "workspaces": [{"name": "ws", "path": f"/bench/{name}"}],
                    "platform": "bench",
                }
                auth = {"Authorization": f"Bearer {keys[i]}"}
                async with gate:
                    answer = await plain.post(f"{API}/agent/register", json=body, headers=auth)
                    check(answer, f"register {name}")

            await asyncio.gather(*(register(i) for i in range(agents)))
        return user_key, keys

    async def _settle(self, sent: list[Sent]) -> None:
        """Wait until every mail sent so far has arrived on SSE (or the timeout)."""
        self.sent += sent
        expected = sum(1 for s in self.sent if s.status == 200)
        if not await self.deliveries.wait_for(expected, self.args.deliver_timeout):
            self.problems.append(
                f"timed out after {self.args.deliver_timeout:.0f}s waiting for SSE deliveries "
                f"({self.deliveries.count} of {expected})"
            )

    async def warm_up(self, items: list[tuple[int, bytes]]) -> None:
        assert self.senders is not None
        await self._settle(await send_all(self.senders, self.path, items))

    async def idle(self) -> list[float]:
        assert self.senders is not None
        return await idle_round_trips(self.senders[0], f"{API}/health")

    async def round(self, items: list[tuple[int, bytes]]) -> Load:
        assert self.senders is not None
        return await timed_load(self.senders, self.path, items, self.server, self._settle)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await asyncio.sleep(self.args.grace)  # a late duplicate would show up here
        for reader in self._readers:
            reader.cancel()
        for reader in self._readers:
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reader
        if self._sse is not None:
            await self._sse.aclose()
        if self.senders is not None:
            await self.senders.aclose()

    def verify(self) -> list[str]:
        """Every mail exactly once, on exactly its recipient's stream; nothing unknown."""
        agents = self.args.agents
        problems = [
            f"mail {s.index}: HTTP {s.status} {s.result}" for s in self.sent if s.status != 200
        ]
        expected = {s.mail_id: s.index % agents for s in self.sent if s.status == 200}
        seen = self.deliveries.seen
        missing = [m for m in expected if m not in seen]
        if missing:
            problems.append(f"{len(missing)} mails never arrived on SSE (e.g. {missing[0]})")
        for mail_id, arrivals in seen.items():
            if mail_id not in expected:
                problems.append(f"unexpected new_mail {mail_id} on {agent_name(arrivals[0][0])}")
                continue
            if len(arrivals) != 1:
                problems.append(f"mail {mail_id} arrived {len(arrivals)} times")
            wrong = {agent_name(a) for a, _, _ in arrivals if a != expected[mail_id]}
            if wrong:
                problems.append(
                    f"mail {mail_id} for {agent_name(expected[mail_id])} "
                    f"arrived on {', '.join(sorted(wrong))}"
                )
        problems = self.problems + problems
        if len(problems) > 12:
            problems = [*problems[:12], f"... and {len(problems) - 12} more"]
        return problems


class HelloTarget:
    """The baseline: the same requests to a hello-world `POST /echo`."""

    path = "/echo"

    def __init__(self, args: argparse.Namespace, server: Child) -> None:
        self.args = args
        self.server = server
        self.senders = Senders(
            server.base_url, args.senders, "not-checked", shared=args.shared_client
        )

    async def warm_up(self, items: list[tuple[int, bytes]]) -> None:
        await send_all(self.senders, self.path, items)

    async def idle(self) -> list[float]:
        return await idle_round_trips(self.senders[0], "/health")

    async def round(self, items: list[tuple[int, bytes]]) -> Load:
        return await timed_load(self.senders, self.path, items, self.server)

    async def close(self) -> None:
        await self.senders.aclose()


# ---------------------------------------------------------------- report


@dataclass
class Results:
    gateway: Load
    hello: Load
    deliveries: Deliveries
    problems: list[str]
    mails_checked: int
    setup_seconds: float


def facts(args: argparse.Namespace, backend: str) -> list[tuple[str, str]]:
    httptools = importlib.util.find_spec("httptools") is not None
    uvloop = importlib.util.find_spec("uvloop") is not None
    servers = "1 process each; asyncio (stdlib) loop, uvicorn HTTP " + (
        "httptools" if httptools else "h11"
    )
    if uvloop:
        servers += (
            "; uvloop is installed but neither server uses it (uvicorn embedded via "
            "Server.serve inside asyncio.run installs no loop)"
        )
    if args.hello_without_nodelay:
        servers += "; baseline without TCP_NODELAY"
    client = "1 process, 1 event loop: " + (
        "1 shared httpx.AsyncClient" if args.shared_client else "1 httpx.AsyncClient per sender"
    )
    return [
        ("machine", f"{os.cpu_count()} CPUs, {platform.platform()}"),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("database", backend),
        ("servers", servers),
        ("client", client + " (HTTP/1.1 keep-alive), and the SSE readers"),
    ]


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def report(args: argparse.Namespace, results: Results, backend: str, command: str) -> bool:
    gw, hello, deliveries = results.gateway, results.hello, results.deliveries
    by_id = {s.mail_id: s for s in gw.ok}
    arrived = [(s, deliveries.seen[m][0]) for m, s in by_id.items() if m in deliveries.seen]
    delivery = [arrival[1] - s.start_perf for s, arrival in arrived]
    stamps = deliveries.server_stamp
    to_server = [stamps[m] - s.start_wall for m, s in by_id.items() if m in stamps]
    from_server = [arrival[2] - stamps[s.mail_id] for s, arrival in arrived if s.mail_id in stamps]

    title = (
        f"REST send load: {args.mails} requests, {args.senders} concurrent senders, "
        f"{args.rounds} interleaved rounds"
    )
    table = Table(title=title)
    table.add_column("")
    table.add_column(f"gateway ({backend.split()[0]})", justify="right")
    table.add_column("hello-world", justify="right")
    both = (gw, hello)

    def row(label: str, value: Callable[[Load], str]) -> None:
        table.add_row(label, *(value(x) for x in both))

    row("requests (after warm-up)", lambda x: str(len(x.sent)))
    row("failed requests", lambda x: str(len(x.sent) - len(x.ok)))
    row("wall time, first POST → last response", lambda x: f"{x.wall:.2f} s")
    row("requests / second", lambda x: f"{x.rate:.0f}")
    row("  per round", lambda x: " ".join(f"{r:.0f}" for r in x.round_rates))
    row("idle GET /health, sequential, p50 (ms)", lambda x: ms(percentile(x.idle_rtt, 50)))
    for p in (50, 90, 99, 100):
        row(
            f"POST latency {'max' if p == 100 else f'p{p}'} (ms)",
            lambda x, p=p: ms(x.post_latency(p)),
        )
    row("server CPU (share of one core)", lambda x: pct(x.share(x.server_cpu)))
    row("client CPU (share of one core)", lambda x: pct(x.share(x.client_cpu)))
    row("other processes' CPU (share of one core)", lambda x: pct(x.share(x.others_cpu())))
    row("client loop lag p99 (ms)", lambda x: ms(percentile(x.loop_lag, 99)))
    console.print(table)

    lat = Table(title=f"send → SSE new_mail delivery ({args.agents} agents on SSE)")
    lat.add_column("")
    for name in ("p50", "p90", "p99", "max"):
        lat.add_column(name + " (ms)", justify="right")
    for label, values in (
        ("POST start → SSE arrival", delivery),
        ("  POST start → server stamp (created_at)", to_server),
        ("  server stamp → SSE arrival", from_server),
    ):
        lat.add_row(label, *(ms(percentile(values, p)) for p in (50, 90, 99, 100)))
    console.print(lat)
    console.print(
        f"setup (admin, sender, {args.agents} keys and registrations, {args.agents} SSE "
        f"streams): {results.setup_seconds:.1f} s"
    )

    p99 = percentile(delivery, 99)
    ratio = gw.rate / hello.rate if hello.rate else math.nan
    goal_latency = not math.isnan(p99) and p99 * 1000 < GOAL_P99_MS
    goal_rate = not math.isnan(ratio) and ratio >= GOAL_RATIO

    def mark(met: bool) -> str:
        return "[bold green]met[/]" if met else "[bold red]not met[/]"

    lines = [
        f"gateway sends/s          {gw.rate:8.0f}",
        f"hello-world requests/s   {hello.rate:8.0f}",
        f"ratio gateway/hello      {ratio * 100:8.1f} %",
        f"delivery p50 / p99       {ms(percentile(delivery, 50))} / {ms(p99)} ms",
        f"POST p50 / p99           {ms(gw.post_latency(50))} / {ms(gw.post_latency(99))} ms",
        "",
        f"goal  p99 delivery < {GOAL_P99_MS:.0f} ms            {ms(p99):>8} ms   "
        + mark(goal_latency),
        f"goal  send rate >= {GOAL_RATIO:.0%} of hello-world    {ratio * 100:8.1f} %    "
        + mark(goal_rate),
        "",
    ]
    lines += notes(args, gw, hello, goal_latency)
    if results.problems:
        lines += [f"[bold red]FAIL[/]  {problem}" for problem in results.problems]
    else:
        lines.append(
            f"[bold green]OK[/]    all {results.mails_checked} mails (warm-up included) arrived "
            "exactly once, each on its recipient's stream"
        )
    if args.profile:
        lines.append(
            f"[yellow]profiled[/]  the gateway ran under {args.profile}, so its figures are "
            f"lower than normal; profile: {args.profile_out}"
        )
    lines += ["", f"reproduce  {command}"]
    lines += [f"{name:<10} {value}" for name, value in facts(args, backend)]
    console.print(Panel("\n".join(lines), title="summary", expand=False))
    return not results.problems


def notes(args: argparse.Namespace, gw: Load, hello: Load, goal_latency: bool) -> list[str]:
    """What a reader should know before trusting the figures."""
    lines: list[str] = []
    for name, phase in (("gateway", gw), ("hello-world", hello)):
        client = phase.share(phase.client_cpu) or 0.0
        if client >= CLIENT_BOUND_CPU:
            lines.append(
                f"[yellow]note[/]  the client process used {client:.0%} of a core while sending "
                f"to the {name}: it is probably the bottleneck there, so the {name} figure is a "
                "lower bound of what the server can do"
            )
        others = phase.share(phase.others_cpu())
        if others is not None and others >= OTHERS_BUSY_CPU:
            postgres = ""
            if name == "gateway" and args.database_url:
                postgres = " (PostgreSQL's backends count here)"
            lines.append(
                f"[yellow]note[/]  other processes used {others:.0%} of a core while sending to "
                f"the {name}{postgres}; {os.cpu_count()} CPUs in all: figures are noisier and "
                "lower than on a quiet machine"
            )
    server = gw.share(gw.server_cpu) or 0.0
    needed = args.senders / (GOAL_P99_MS / 1000)
    if not goal_latency and server >= 0.8:
        lines.append(
            f"[yellow]note[/]  the gateway used {server:.0%} of a core (one process, one core "
            f"at most): it is CPU-bound at {gw.rate:.0f} sends/s. With {args.senders} senders "
            f"always waiting, latency ≈ senders / rate, so p99 < {GOAL_P99_MS:.0f} ms needs "
            f"well over {needed:.0f} sends/s"
        )
    idle = percentile(gw.idle_rtt, 50)
    if idle >= 0.035 and percentile(hello.idle_rtt, 50) < 0.02:
        lines.append(
            f"[yellow]note[/]  an idle GET /health takes {idle * 1000:.0f} ms on the gateway: "
            "that is Nagle's algorithm meeting the client's delayed ACK (about 40 ms). The "
            "gateway's listening socket (socket.create_server in gateway/server.py) lacks "
            "TCP_NODELAY; uvicorn's own sockets get it from asyncio"
        )
    return lines


def print_cprofile(path: Path, top: int = 25) -> None:
    try:
        stats = pstats.Stats(str(path))
    except (OSError, TypeError, EOFError) as error:
        console.print(f"[yellow]no cProfile output at {path}: {error}[/]")
        return
    table = Table(title=f"gateway cProfile (main thread only): top {top} by own time ({path})")
    for column in ("own s", "cum s", "calls", "function"):
        table.add_column(column, justify="left" if column == "function" else "right")
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = sorted(raw.items(), key=lambda item: item[1][2], reverse=True)[:top]
    for (filename, line, name), (_cc, calls, own, cum, _callers) in rows:
        where = filename.replace(str(ROOT) + "/", "").replace(str(VENV_BIN.parent) + "/", "")
        table.add_row(f"{own:.2f}", f"{cum:.2f}", str(calls), f"{name}  {where}:{line}")
    console.print(table)


def print_py_spy(path: Path, top: int = 20) -> None:
    """Summarise py-spy's raw (collapsed) stacks: hottest leaves, and our own code inclusive."""
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        console.print(f"[yellow]no py-spy output at {path}: {error}[/]")
        return
    leaves: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    total, pending = 0, ""
    for line in text.splitlines():
        pending += line  # a frame name may contain a newline: join until the count
        stack, _, count = pending.rpartition(" ")
        if not count.isdigit():
            continue
        pending, samples = "", int(count)
        total += samples
        frames = stack.split(";")
        leaves[frames[-1]] += samples
        names = {f.rsplit(":", 1)[0] for f in frames if re.search(r"\((core|api|gateway)/", f)}
        for name in names:
            ours[name + ")"] += samples
    if not total:
        return
    table = Table(title=f"gateway py-spy (GIL holder): {total} samples ({path})")
    table.add_column("share", justify="right")
    table.add_column("where")
    for label, counter in (("own", leaves), ("inclusive, our code", ours)):
        table.add_row("", f"[bold]{label}[/]")
        for frame, samples in counter.most_common(top):
            table.add_row(f"{samples / total:.1%}", frame)
    console.print(table)


# ---------------------------------------------------------------- main


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/rest_loop.py"]
    argv += ["--mails", str(args.mails), "--agents", str(args.agents)]
    argv += ["--senders", str(args.senders)]
    if args.database_url:
        argv += ["--database-url", args.database_url]
    defaults = parse_args([])
    for option in ("rounds", "warmup", "body_bytes", "profile", "gateway_command"):
        if getattr(args, option) != getattr(defaults, option):
            argv += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
    for flag in ("shared_client", "hello_without_nodelay"):
        if getattr(args, flag):
            argv.append(f"--{flag.replace('_', '-')}")
    return shlex.join(argv)


def split(items: list[tuple[int, bytes]], parts: int) -> list[list[tuple[int, bytes]]]:
    size = math.ceil(len(items) / parts)
    return [items[i : i + size] for i in range(0, len(items), size)]


async def measure(args: argparse.Namespace, gateway: GatewayTarget, hello: HelloTarget) -> Results:
    """Warm both up, then alternate rounds: gateway, hello-world, gateway, hello-world, …"""
    a = args
    warm = mail_items(0, a.warmup, a.agents, a.body_bytes, "warm-up")
    await gateway.warm_up(warm)
    await hello.warm_up(warm)
    gw_total, hello_total = Load(), Load()
    gw_total.idle_rtt = await gateway.idle()
    hello_total.idle_rtt = await hello.idle()
    measured = mail_items(a.warmup, a.mails, a.agents, a.body_bytes, "bench")
    for number, items in enumerate(split(measured, a.rounds), 1):
        gw_round = await gateway.round(items)
        hello_round = await hello.round(items)
        gw_total.add(gw_round)
        hello_total.add(hello_round)
        console.print(
            f"round {number}/{a.rounds}: gateway {gw_round.rate:.0f} sends/s, "
            f"hello-world {hello_round.rate:.0f} requests/s"
        )
    await gateway.close()
    problems = gateway.verify()
    problems += [
        f"hello-world request {s.index}: HTTP {s.status}"
        for s in hello_total.sent
        if s.status != 200
    ][:3]
    return Results(
        gateway=gw_total,
        hello=hello_total,
        deliveries=gateway.deliveries,
        problems=problems,
        mails_checked=len(gateway.sent),
        setup_seconds=gateway.setup_seconds,
    )


async def main(args: argparse.Namespace) -> int:
    command = reproduce(args)
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-bench-"))
    env = {
        **os.environ,
        "ADMIN_USER": "admin",
        "ADMIN_PASSWORD": ADMIN_PASSWORD,
        "AGENTMAIL_BCRYPT_ROUNDS": "4",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DATABASE_URL", None)
    database_url = ""
    if args.database_url:
        database_url, version = await create_pg_database(args.database_url)
        env["DATABASE_URL"] = database_url
        backend = f"PostgreSQL {version} (fresh database {make_url(database_url).database})"
    else:
        backend = f"SQLite {sqlite3.sqlite_version} (WAL, fresh file in a temp dir)"
    console.print(f"[bold]rest_loop[/]  {command}")
    console.print(f"database   {backend}")
    children: list[Child] = []
    try:
        port = free_port()
        argv = gateway_argv(args, port, workdir / "data")
        gateway = spawn("gateway", argv, env, workdir / "gateway.log", port)
        children.append(gateway)
        port = free_port()
        argv = [sys.executable, str(BENCH_DIR / "_hello.py"), "--port", str(port)]
        if args.hello_without_nodelay:
            argv.append("--no-nodelay")
        baseline = spawn("hello-world", argv, env, workdir / "hello.log", port)
        children.append(baseline)
        await gateway.wait_healthy(f"{API}/health")
        await baseline.wait_healthy("/health")
        console.print(f"gateway    pid {gateway.proc.pid} at {gateway.base_url}")
        console.print(f"baseline   pid {baseline.proc.pid} at {baseline.base_url}")
        gateway_target = GatewayTarget(args, gateway)
        hello_target = HelloTarget(args, baseline)
        try:
            await gateway_target.setup()
            console.print(f"set up in {gateway_target.setup_seconds:.1f} s; sending …")
            results = await measure(args, gateway_target, hello_target)
        finally:
            await gateway_target.close()
            await hello_target.close()
    finally:
        for child in children:
            await child.stop()
        if database_url:
            await drop_pg_database(args.database_url, database_url)
        if args.keep:
            console.print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.profile == "cprofile":
        print_cprofile(args.profile_out)
    elif args.profile == "py-spy":
        print_py_spy(args.profile_out)
    return 0 if report(args, results, backend, command) else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="REST send → SSE delivery loop of the gateway, beside a hello-world baseline."
    )
    parser.add_argument("--mails", type=int, default=2000, help="measured mails (default 2000)")
    parser.add_argument("--agents", type=int, default=50, help="agents on SSE (default 50)")
    parser.add_argument("--senders", type=int, default=20, help="concurrent senders (default 20)")
    parser.add_argument(
        "--database-url",
        default="",
        help="postgresql://postgres@127.0.0.1:5432/test: a fresh database is created on that "
        "server (connecting to the named database) and dropped afterwards; default SQLite",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="alternate gateway and hello-world this many times, so both see the same "
        "machine (default 4)",
    )
    parser.add_argument(
        "--warmup", type=int, default=100, help="untimed requests to each server first (100)"
    )
    parser.add_argument("--body-bytes", type=int, default=500, help="mail body size (default 500)")
    parser.add_argument(
        "--deliver-timeout", type=float, default=60.0, help="seconds to wait for SSE deliveries"
    )
    parser.add_argument(
        "--grace", type=float, default=0.5, help="seconds to watch for late duplicates"
    )
    parser.add_argument(
        "--profile",
        choices=("cprofile", "py-spy"),
        default=os.environ.get("AGENTMAIL_BENCH_PROFILE") or None,
        help="run the gateway under cProfile or py-spy (env AGENTMAIL_BENCH_PROFILE; py-spy "
        "from PATH or PY_SPY)",
    )
    parser.add_argument("--profile-out", type=Path, default=None, help="where the profile goes")
    parser.add_argument(
        "--shared-client",
        action="store_true",
        help="all senders share one httpx.AsyncClient (a pool of --senders connections) "
        "instead of one client each; that costs the client ~2.5x the CPU per request",
    )
    parser.add_argument(
        "--hello-without-nodelay",
        action="store_true",
        help="serve the baseline without TCP_NODELAY, like gateway/server.py's socket today",
    )
    parser.add_argument(
        "--gateway-command",
        default="",
        help="for experiments: run this instead of .venv/bin/agentmail (it gets 'serve "
        "--http-port N --data-dir D' appended), e.g. a wrapper that patches something",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, database)")
    args = parser.parse_args(argv)
    if min(args.mails, args.agents, args.senders, args.rounds) < 1 or args.warmup < 0:
        parser.error("--mails, --agents, --senders and --rounds must be >= 1, --warmup >= 0")
    args.rounds = min(args.rounds, args.mails)
    if args.profile and args.profile_out is None:
        suffix = "prof" if args.profile == "cprofile" else "txt"
        args.profile_out = Path(tempfile.gettempdir()) / f"agentmail-bench-gateway.{suffix}"
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

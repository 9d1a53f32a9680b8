"""Load from `wrk` (C): HTTP throughput that is not capped by a Python client.

A Python client spends far more CPU per request than a hello-world app does, so
it cannot drive one to its rate and the baseline looks slower than it is; `wrk`
costs next to nothing per request. The bench writes a Lua
script into its temp dir that gives every request its own JSON body (the `to`
rotates over the agents, the subject is unique: `wrk r<round>.<thread> <n> to <agent>`,
so the SSE check can find each mail), and prints the summary from wrk's `done`
hook as `WRK key=value` lines, which `run_wrk` parses.

CPU is read from /proc around each run: the server's process tree and, for a
gateway on PostgreSQL, the backends serving its database (`pg_backend_pids`), so
"CPU ms per request" is everything the server side spent.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg
from _children import Child, machine_busy_cpu, process_tree_cpu
from sqlalchemy.engine import make_url

LUA = r"""
-- `tid` is a global each thread's Lua state gets from setup() (a local would hide it).
local counter = 0
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
%(headers)s
function request()
  counter = counter + 1
  local agent = (counter * 7 + tid) %% %(agents)d
  local body = string.format(%(format)s, agent, tid, counter, agent)
  return wrk.format(nil, %(path)s, nil, body)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK requests=%%d duration_us=%%d\n", summary.requests, summary.duration))
  io.write(string.format("WRK connect=%%d read=%%d write=%%d status=%%d timeout=%%d\n",
    e.connect, e.read, e.write, e.status, e.timeout))
  io.write(string.format("WRK p50_us=%%d p99_us=%%d\n",
    latency:percentile(50), latency:percentile(99)))
end
"""


def lua_script(path: str, headers: dict[str, str], body_format: str, agents: int) -> str:
    """`body_format` is a Lua `string.format` pattern taking (agent, thread, n, agent)."""
    lines = "\n".join(f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items())
    return LUA % {
        "headers": lines,
        "agents": agents,
        "format": json.dumps(body_format),
        "path": json.dumps(path),
    }


@dataclass
class WrkRun:
    requests: int = 0
    seconds: float = 0.0
    errors: int = 0  # connect, read, write, timeout and non-2xx statuses
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    server_cpu: float = 0.0  # seconds, server process tree (+ its PostgreSQL backends)
    machine_cpu: float = 0.0  # seconds, every process on the machine
    load_average: str = ""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_request(self) -> float:
        return 1000 * self.server_cpu / self.requests if self.requests else float("nan")


def summed(runs: list[WrkRun], *, side_by_side: bool = False) -> WrkRun:
    """Several runs as one: requests, errors and CPU added, the worst latencies; their
    seconds added for rounds one after another, the longest for runs side by side."""
    total = WrkRun(load_average=" / ".join(r.load_average for r in runs))
    for run in runs:
        total.requests += run.requests
        total.errors += run.errors
        total.server_cpu += run.server_cpu
        total.machine_cpu += run.machine_cpu
    seconds = [r.seconds for r in runs]
    total.seconds = max(seconds, default=0.0) if side_by_side else sum(seconds)
    total.p50_ms = max((r.p50_ms for r in runs), default=0.0)
    total.p99_ms = max((r.p99_ms for r in runs), default=0.0)
    return total


def wrk_available() -> str | None:
    return shutil.which("wrk")


async def pg_backend_pids(database_url: str) -> list[int]:
    """The PostgreSQL backends connected to the database of `database_url` (same machine)."""
    parsed = make_url(database_url)
    conn = await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        database=parsed.database,
    )
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            parsed.database,
        )
    finally:
        await conn.close()
    return [int(row["pid"]) for row in rows]


class ServerCpu:
    """CPU seconds of a server's processes, and of its PostgreSQL backends if it has them."""

    def __init__(self, server: Child | int, database_url: str = "") -> None:
        self.pid = server if isinstance(server, int) else server.proc.pid  # int: a process id
        self.database_url = database_url

    async def sample(self) -> dict[int, float]:
        pids = [self.pid]
        if self.database_url:
            pids += await pg_backend_pids(self.database_url)
        return {pid: process_tree_cpu(pid) or 0.0 for pid in pids}

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        # A backend that started during the run spent all of its CPU in it.
        return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


async def run_wrk(
    url: str, script: Path, cpu: ServerCpu, *, seconds: float, connections: int, threads: int = 2
) -> WrkRun:
    """One closed-loop run of wrk against `url` with `script`; CPU measured around it."""
    wrk = wrk_available()
    assert wrk is not None
    argv = [wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds:.0f}s", "--latency"]
    argv += ["--timeout", "10s", "-s", str(script), url]
    before, machine = await cpu.sample(), machine_busy_cpu() or 0.0
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    elapsed = time.perf_counter() - started
    after = await cpu.sample()
    run = WrkRun(server_cpu=ServerCpu.spent(before, after), load_average=load_average())
    run.machine_cpu = (machine_busy_cpu() or 0.0) - machine
    values: dict[str, int] = {}
    for line in output.decode(errors="replace").splitlines():
        if line.startswith("WRK "):
            for pair in line[4:].split():
                key, _, value = pair.partition("=")
                values[key] = int(value)
    if "requests" not in values:
        raise RuntimeError(f"wrk gave no summary:\n{output.decode(errors='replace')}")
    run.requests = values["requests"]
    run.seconds = values["duration_us"] / 1e6 or elapsed
    run.errors = sum(values[k] for k in ("connect", "read", "write", "status", "timeout"))
    run.p50_ms, run.p99_ms = values["p50_us"] / 1000, values["p99_us"] / 1000
    return run

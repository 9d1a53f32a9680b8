"""A soak: minutes of mixed load on one gateway, and whether it stays flat.

    .venv/bin/python bench/soak.py [--minutes 10] [--database-url postgresql://…]
    make soak                                    # the same, ten minutes on SQLite

One real `agentmail serve` process on a fresh data directory (SQLite, or a fresh
PostgreSQL database with `--database-url`). Over HTTP: 50 humans (`--humans`)
and 150 agents, each agent in a conversation its human opened with an unlimited
budget. Then, for `--minutes`:

- 200 SSE streams (every agent and every human; reconnecting with Last-Event-ID);
- 50 IMAP IDLE sessions on the humans' INBOXes, each leaving IDLE every 25 s to
  FETCH its newest message whole (the content cache) and going back;
- REST senders at `--rest-rate` mails/s (a human to an agent, an agent's answer
  to its human), SMTP submissions at `--smtp-rate` (a new session each, AUTH),
  readers at `--read-rate` (a human's inbox page and its newest mail): open
  loop, so a slow server builds a queue rather than being spared.

Every `--report-seconds` a line: rates, latency p50/p99 of each kind (REST send,
SMTP send, read, commit → SSE delivery, IMAP FETCH), errors, and the gateway's RSS
and open file descriptors. At the end: totals, errors (goal 0), and RSS and fds
after the warm-up (the first report) beside the end (goal: flat).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _children import Child, drop_pg_database, free_port, fresh_database, gateway_env, spawn
from _cli import reproduce
from _load import percentile
from _report import console
from _soak_clients import (
    Tally,
    World,
    build_world,
    idle_listener,
    reader,
    rest_sender,
    smtp_sender,
    sse_listener,
    steady,
)
from _wrk import load_average

ADMIN_PASSWORD = "soak-admin-password"
KINDS = ("rest send", "smtp send", "read", "delivery", "imap fetch")  # p50/p99 ms each


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--database-url", default="", help="postgresql://… (default: SQLite)")
    parser.add_argument("--humans", type=int, default=50, help="humans: IMAP IDLE and SSE each")
    parser.add_argument("--agents", type=int, default=150, help="agents: SSE each")
    parser.add_argument("--rest-rate", type=float, default=10.0, help="REST sends per second")
    parser.add_argument("--smtp-rate", type=float, default=2.0, help="SMTP submissions per second")
    parser.add_argument("--read-rate", type=float, default=5.0, help="inbox reads per second")
    parser.add_argument("--body-bytes", type=int, default=2000)
    parser.add_argument("--report-seconds", type=float, default=60.0)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (the gateway's log)")
    parser.add_argument(
        "--gateway-command",
        default="",
        help="run the gateway with this command instead of `agentmail` (a profiler's, a tracer's)",
    )
    return parser.parse_args(argv)


def rss_and_fds(pid: int) -> tuple[float, int]:
    """The gateway's resident memory (MiB) and open file descriptors, from /proc."""
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def _cell(values: list[float]) -> str:
    if not values:
        return f"{'-':>13}"
    return f"{percentile(values, 50) * 1000:>6.0f}/{percentile(values, 99) * 1000:<6.0f}"


def report_line(elapsed: float, window: float, taken: Tally, rss: float, fds: int) -> str:
    rate = len(taken.latencies["rest send"]) / window
    smtp = len(taken.latencies["smtp send"]) / window
    cells = "".join(_cell(taken.latencies[k]) for k in KINDS)
    errors = sum(taken.errors.values())
    return f"{elapsed / 60:>5.1f} {rate:>6.1f} {smtp:>5.1f}{cells}{errors:>7}{rss:>8.0f}{fds:>6}"


def header() -> str:
    kinds = "".join(f"{k:>13}" for k in KINDS)
    return f"{'min':>5} {'rest/s':>6} {'smtp/s':>5}{kinds}{'errors':>7}{'RSS MiB':>8}{'fds':>6}"


async def _gateway(workdir: Path, url: str, command: str) -> tuple[Child, int, int]:
    http, smtp, imap = free_port(), free_port(), free_port()
    env = gateway_env(ADMIN_PASSWORD, url)
    env.update(
        AGENTMAIL_SMTP_PORT=str(smtp),
        AGENTMAIL_IMAP_PORT=str(imap),
        # Every client is on loopback: one address, hundreds of connections.
        AGENTMAIL_IMAP_MAX_CONNECTIONS_PER_ADDRESS="1000",
        AGENTMAIL_SMTP_MAX_CONNECTIONS_PER_ADDRESS="1000",
        AGENTMAIL_LOG_LEVEL="warning",
    )
    agentmail = (
        shlex.split(command) if command else [str(Path(sys.executable).parent / "agentmail")]
    )
    argv = [*agentmail, "serve", "--http-port", str(http), "--data-dir", str(workdir / "data")]
    child = spawn("gateway", argv, env, workdir / "gateway.log", http)
    await child.wait_healthy("/readyz", timeout=300)
    return child, smtp, imap


async def soak(args: argparse.Namespace, child: Child, smtp: int, imap: int, world: World) -> int:
    tally, stop = Tally(), asyncio.Event()
    base = child.base_url
    keys = world.agent_keys + world.user_keys
    listeners = [asyncio.create_task(sse_listener(base, key, tally, stop)) for key in keys]
    listeners += [asyncio.create_task(idle_listener(imap, h, tally, stop)) for h in world.humans]
    # Idle connections are dropped before the server's keep-alive timeout (uvicorn's 5 s)
    # can close one just as a request goes out on it (a ReadError no server can prevent).
    limits = httpx.Limits(max_connections=100, keepalive_expiry=3.0)
    async with (
        httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as senders,
        httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as readers,
    ):
        loads = [
            asyncio.create_task(
                steady(args.rest_rate, stop, rest_sender(senders, world, tally, args.body_bytes))
            ),
            asyncio.create_task(
                steady(args.smtp_rate, stop, smtp_sender(smtp, world, tally, args.body_bytes))
            ),
            asyncio.create_task(steady(args.read_rate, stop, reader(readers, world, tally))),
        ]
        console.print(header())
        started = time.perf_counter()
        samples: list[tuple[float, int]] = [rss_and_fds(child.proc.pid)]
        console.print(f"{'start':>5}{'':>85}{samples[0][0]:>8.0f}{samples[0][1]:>6}")
        totals, errors = Tally(), Tally()
        end = started + args.minutes * 60
        while (now := time.perf_counter()) < end:
            await asyncio.sleep(min(args.report_seconds, end - now))
            taken = tally.take()
            sample = rss_and_fds(child.proc.pid)
            samples.append(sample)
            window = min(args.report_seconds, time.perf_counter() - now)
            console.print(report_line(time.perf_counter() - started, window, taken, *sample))
            for kind, values in taken.latencies.items():
                totals.latencies[kind] += values
            for kind, count in taken.errors.items():
                errors.errors[kind] += count
                errors.last_error[kind] = taken.last_error.get(kind, "")
        stop.set()
        await asyncio.gather(*loads, return_exceptions=True)
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    return summary(args, totals, errors, samples)


def summary(
    args: argparse.Namespace, totals: Tally, errors: Tally, samples: list[tuple[float, int]]
) -> int:
    console.print(
        f"\n[bold]soak[/] {args.minutes:g} min; {os.cpu_count()} CPUs; load {load_average()}"
    )
    for kind in KINDS:
        values = totals.latencies[kind]
        if values:
            console.print(
                f"  {kind:<11} {len(values):>7}  p50 {percentile(values, 50) * 1000:>7.1f} ms"
                f"  p99 {percentile(values, 99) * 1000:>8.1f} ms"
            )
    console.print(f"  IDLE pushes {len(totals.latencies['idle push'])}")
    count = sum(errors.errors.values())
    console.print(f"errors: {count} (goal 0)")
    for kind, number in errors.errors.items():
        console.print(f"  {kind}: {number}, e.g. {errors.last_error.get(kind, '')}")
    warm, last = samples[min(1, len(samples) - 1)], samples[-1]
    console.print(
        f"RSS {samples[0][0]:.0f} MiB at start, {warm[0]:.0f} after the warm-up, {last[0]:.0f} at"
        f" the end; fds {samples[0][1]} / {warm[1]} / {last[1]}"
    )
    console.print(f"reproduce: {reproduce('bench/soak.py', args, parse_args([]))}")
    return 1 if count else 0


async def main(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-soak-"))
    url, database = await fresh_database(args.database_url, str(workdir / "data"))
    child: Child | None = None
    try:
        child, smtp, imap = await _gateway(workdir, url, args.gateway_command)
        console.print(f"soak on {database}; setting up {args.humans} humans, {args.agents} agents")
        world = await build_world(child.base_url, ADMIN_PASSWORD, args.humans, args.agents)
        return await soak(args, child, smtp, imap, world)
    finally:
        if child is not None:
            await child.stop()
        if url:
            await drop_pg_database(args.database_url, url)
        if args.keep:
            console.print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))

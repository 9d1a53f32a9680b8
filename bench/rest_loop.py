"""The REST + SSE collaboration loop under load, beside a hello-world FastAPI baseline.

    .venv/bin/python bench/rest_loop.py [--mails 2000 --agents 50 --senders 20]
                                        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

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

This file is the command line and the main flow. The pieces sit beside it:
`_children.py` (the server processes and the fresh PostgreSQL database),
`_load.py` (the senders, the SSE readers and the measurement records),
`_targets.py` (the gateway's setup and delivery check, and the baseline), and
`_report.py` (the tables, the summary and the goals).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _children import (
    BENCH_DIR,
    Child,
    drop_pg_database,
    free_port,
    fresh_database,
    gateway_argv,
    gateway_env,
    spawn,
)
from _load import API, Load, mail_items
from _report import Results, console, print_cprofile, print_py_spy, report
from _rest_wrk import check_wrk_deliveries, print_wrk, start_agent_inbox, targets, wrk_phase
from _targets import ADMIN_PASSWORD, GatewayTarget, HelloTarget
from _wrk import wrk_available


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/rest_loop.py"]
    argv += ["--mails", str(args.mails), "--agents", str(args.agents)]
    argv += ["--senders", str(args.senders)]
    if args.database_url:
        argv += ["--database-url", args.database_url]
    defaults = parse_args([])
    for option in (
        "rounds", "warmup", "body_bytes", "profile", "gateway_command", "wrk_seconds", "wrk_rounds",
    ):  # fmt: skip
        if getattr(args, option) != getattr(defaults, option):
            argv += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
    for flag in ("shared_client", "hello_without_nodelay"):
        if getattr(args, flag):
            argv.append(f"--{flag.replace('_', '-')}")
    if not args.peer:
        argv.append("--no-peer")
    return shlex.join(argv)


def split(items: list[tuple[int, bytes]], parts: int) -> list[list[tuple[int, bytes]]]:
    size = math.ceil(len(items) / parts)
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class Servers:
    """The server processes, for the wrk phase."""

    gateway: Child
    hello: Child
    peer: Child | None
    workdir: Path
    database_url: str


async def measure(
    args: argparse.Namespace, gateway: GatewayTarget, hello: HelloTarget, servers: Servers
) -> Results:
    """Warm both up, then alternate rounds: gateway, hello-world, gateway, hello-world, …
    (the Python client: SSE delivery latency); then the wrk phase (throughput, CPU)."""
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
    problems: list[str] = []
    wrk_ratio = None
    if args.wrk_seconds > 0 and wrk_available():
        found = targets(
            args, servers.workdir, servers.gateway, gateway.user_key, servers.database_url,
            servers.hello, servers.peer,
        )  # fmt: skip
        await wrk_phase(args, found)
        answered = found[0].total().requests - found[0].total().errors
        problems += await check_wrk_deliveries(
            gateway.deliveries, answered, args.agents, args.deliver_timeout
        )
        wrk_ratio = print_wrk(found)
    elif args.wrk_seconds > 0:
        console.print("[yellow]wrk skipped:[/] no wrk on PATH (Debian: apt-get install wrk)")
    await gateway.close()
    problems = gateway.verify() + problems
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
        wrk_ratio=wrk_ratio,
    )


async def main(args: argparse.Namespace) -> int:
    command = reproduce(args)
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-bench-"))
    database_url, backend = await fresh_database(args.database_url, "WAL, fresh file in a temp dir")
    env = gateway_env(ADMIN_PASSWORD, database_url)
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
        peer = None
        if args.peer and args.wrk_seconds > 0:
            peer = await start_agent_inbox(workdir, args.agents)
        if peer is not None:
            children.append(peer)
            console.print(f"peer       pid {peer.proc.pid} at {peer.base_url} (agent-inbox)")
        servers = Servers(gateway, baseline, peer, workdir, database_url)
        gateway_target = GatewayTarget(args, gateway)
        hello_target = HelloTarget(args, baseline)
        try:
            await gateway_target.setup()
            console.print(f"set up in {gateway_target.setup_seconds:.1f} s; sending …")
            results = await measure(args, gateway_target, hello_target, servers)
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
        help="postgresql://postgres@127.0.0.1:5432/postgres: a fresh database is created on that "
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
    parser.add_argument(
        "--wrk-seconds",
        type=float,
        default=10.0,
        help="seconds of each wrk run (throughput phase; 0 = skip it; default 10)",
    )
    parser.add_argument("--wrk-rounds", type=int, default=2, help="wrk alternations (2)")
    parser.add_argument(
        "--no-peer",
        dest="peer",
        action="store_false",
        help="do not install and run agent-inbox 0.34.0 (bench/_peers.py)",
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

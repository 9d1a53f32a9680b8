"""What `rest_loop.py` prints once the load is done: tables, summary, goals, profiles.

The two Rich tables (one column per server, then the delivery latency split at
the server's stamp), the summary panel with the REST goals (docs/performance.md) marked met or
not met, the notes on anything that makes the figures less trustworthy, the
OK/FAIL line of the delivery check, the machine facts, and the summaries of a
cProfile or py-spy profile of the gateway.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import pstats
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _children import ROOT, VENV_BIN
from _load import Deliveries, Load, percentile
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

GOAL_P99_MS = 50.0
GOAL_RATIO = 0.25
CLIENT_BOUND_CPU = 0.85  # a client process busier than this is probably the limit
OTHERS_BUSY_CPU = 0.25  # other processes busier than this make the figures noisy

console = Console(highlight=False)
if not console.is_terminal:
    console.width = 110  # a log or a pipe: wide enough that the tables do not wrap


def ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.1f}"


@dataclass
class Results:
    gateway: Load
    hello: Load
    deliveries: Deliveries
    problems: list[str]
    mails_checked: int
    setup_seconds: float
    # gateway / hello-world requests/s under wrk, as its table shows (None: wrk did not
    # run). The rate goal reads this: the Python client holds hello-world far below
    # what it serves, so its ratio is no measure of the server.
    wrk_ratio: float | None = None


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

    def mark(met: bool) -> str:
        return "[bold green]met[/]" if met else "[bold red]not met[/]"

    # Each goal reads the table it names: delivery from the Python client's (the SSE
    # readers), the rate from wrk's (a client that does not hold the baseline back).
    if results.wrk_ratio is None:
        rate_goal = "     not measured (wrk did not run)"
    else:
        rate_goal = f"{results.wrk_ratio * 100:8.1f} %    " + mark(results.wrk_ratio >= GOAL_RATIO)
    lines = [
        "Python client (the REST send load and delivery tables):",
        f"gateway sends/s          {gw.rate:8.0f}",
        f"hello-world requests/s   {hello.rate:8.0f}",
        f"ratio gateway/hello      {ratio * 100:8.1f} %   (client-bound: not the rate goal)",
        f"delivery p50 / p99       {ms(percentile(delivery, 50))} / {ms(p99)} ms",
        f"POST p50 / p99           {ms(gw.post_latency(50))} / {ms(gw.post_latency(99))} ms",
        "",
        f"goal  p99 delivery < {GOAL_P99_MS:.0f} ms (Python client)      {ms(p99):>8} ms   "
        + mark(goal_latency),
        f"goal  send rate >= {GOAL_RATIO:.0%} of hello-world (wrk)  {rate_goal}",
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

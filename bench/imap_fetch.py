"""IMAP reading: the gateway beside Dovecot on the same 1,000 messages, IDLE push, a big SELECT.

    .venv/bin/python bench/imap_fetch.py [--messages 1000 --rounds 3 --idle-mails 100
                                          --select-messages 100000]
                                         [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Starts the gateway (`agentmail serve`, its own process, fresh data dir or fresh
   PostgreSQL database) and Dovecot (`/usr/sbin/dovecot`, tests/support/dovecot.py,
   plain IMAP on a free high port, one passwd-file user, Maildir).
2. An agent sends `--messages` mails to alice over REST (written in the API, so the
   gateway renders them when they are read). The first FETCH of them is timed on
   its own ("cold": rendering and parsing); then every message's bytes, as the
   gateway serves them, go into Dovecot's INBOX, so both serve the same messages.
3. Rounds, alternating gateway and Dovecot: connect + LOGIN + SELECT INBOX +
   `FETCH 1:N (FLAGS ENVELOPE)` with aioimaplib, and a full `mbsync` pull of INBOX
   into an empty Maildir. One untimed warm-up of each first (Dovecot indexes the
   new Maildir then).
4. IDLE push: an aioimaplib client idles on alice's INBOX; `--idle-mails` mails are
   sent one after the other over REST; each latency is from before the POST until
   the client has read the `EXISTS`.
5. `--select-messages` mails go into heavy's INBOX by bulk inserts through the store
   (the rows the write path makes); SELECT INBOX is timed `--rounds` times.

Goals (docs/performance.md): FETCH within 5x of Dovecot, mbsync within 3x, IDLE p99 < 100 ms,
SELECT of 100,000 messages < 1 s. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys

from _cli import add_database_url
from _db import console
from _imap_clients import Server, SessionTimes, fetch_session, idle_latencies, mbsync_pull
from _imap_clients import select_time as timed_select
from _imap_fill import (
    HEAVY,
    PASSWORD,
    READER,
    GatewayRun,
    agent_client,
    copy_to_dovecot,
    fill_heavy,
    fill_over_rest,
    gateway_run,
    send_one,
    setup_accounts,
)
from _load import percentile
from _wrk import ServerCpu, load_average

from tests.support.dovecot import running_dovecot

ITEMS = "(FLAGS ENVELOPE)"
GOAL_FETCH, GOAL_MBSYNC, GOAL_IDLE_P99, GOAL_SELECT = 5.0, 3.0, 0.100, 1.0


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def mark(met: bool) -> str:
    return "[green]met[/]" if met else "[red]not met[/]"


def median_session(runs: list[SessionTimes]) -> SessionTimes:
    return sorted(runs, key=lambda r: r.total)[len(runs) // 2]


async def compare(
    gw: Server, dove: Server, args: argparse.Namespace, cpus: dict[str, ServerCpu]
) -> None:
    """The FETCH session and the mbsync pull, alternating; the pull's wall time and the
    server's CPU during it (process tree; the gateway's PostgreSQL backends too): on a
    loaded machine mbsync's own file writes make the wall time of both alike."""
    span = f"1:{args.messages}"
    for server in (gw, dove):  # warm-up: Dovecot indexes its fresh Maildir here
        await fetch_session(server, span, ITEMS)
        await asyncio.to_thread(mbsync_pull, server)
    sessions: dict[str, list[SessionTimes]] = {gw.name: [], dove.name: []}
    pulls: dict[str, list[float]] = {gw.name: [], dove.name: []}
    pull_cpu: dict[str, float] = {gw.name: 0.0, dove.name: 0.0}
    for number in range(args.rounds):
        for server in (gw, dove):
            timed = await fetch_session(server, span, ITEMS)
            if timed.fetched != args.messages:
                raise RuntimeError(f"{server.name} FETCH returned {timed.fetched} messages")
            sessions[server.name].append(timed)
            before = await cpus[server.name].sample()
            seconds, files = await asyncio.to_thread(mbsync_pull, server)
            pull_cpu[server.name] += ServerCpu.spent(before, await cpus[server.name].sample())
            if files != args.messages:
                raise RuntimeError(f"mbsync from {server.name} wrote {files} messages")
            pulls[server.name].append(seconds)
        console.print(
            f"round {number + 1}/{args.rounds}: FETCH session gateway "
            f"{sessions[gw.name][-1].total * 1000:.0f} ms, Dovecot "
            f"{sessions[dove.name][-1].total * 1000:.0f} ms; mbsync gateway "
            f"{pulls[gw.name][-1] * 1000:.0f} ms, Dovecot {pulls[dove.name][-1] * 1000:.0f} ms"
        )
    console.print()
    console.print(f"[bold]login + SELECT + FETCH {span} {ITEMS}[/] (median of {args.rounds})")
    console.print(f"{'':12} {'login':>11} {'SELECT':>11} {'FETCH':>11} {'total':>11}")
    for server in (gw, dove):
        m = median_session(sessions[server.name])
        console.print(
            f"{server.name:12} {ms(m.login)} {ms(m.select)} {ms(m.fetch)} [bold]{ms(m.total)}[/]"
        )
    fetch_ratio = (
        median_session(sessions[gw.name]).total / median_session(sessions[dove.name]).total
    )
    console.print(
        f"ratio        {fetch_ratio:.1f}x  "
        f"(goal <= {GOAL_FETCH:.0f}x: {mark(fetch_ratio <= GOAL_FETCH)})"
    )
    console.print()
    console.print(
        f"[bold]mbsync full pull of INBOX[/] ({args.messages} messages, median of {args.rounds})"
    )
    gw_pull, dove_pull = statistics.median(pulls[gw.name]), statistics.median(pulls[dove.name])
    per_message = {
        name: 1000 * cpu / (args.rounds * args.messages) for name, cpu in pull_cpu.items()
    }
    for server in (gw, dove):
        wall = statistics.median(pulls[server.name])
        console.print(
            f"{server.name:12} [bold]{ms(wall)}[/]   server CPU "
            f"{per_message[server.name]:.2f} ms per message"
        )
    pull_ratio = gw_pull / dove_pull
    console.print(
        f"ratio        {pull_ratio:.1f}x  "
        f"(goal <= {GOAL_MBSYNC:.0f}x: {mark(pull_ratio <= GOAL_MBSYNC)}); "
        f"CPU {per_message[gw.name] / max(per_message[dove.name], 1e-9):.1f}x; "
        f"load {load_average()}"
    )


async def idle_push(gw: Server, base_url: str, key: str, count: int) -> None:
    async with agent_client(base_url, key) as agent:

        async def send(number: int) -> None:
            await send_one(agent, f"pushed {number}")

        latencies = await idle_latencies(gw, send, count)
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    console.print()
    console.print(
        f"[bold]IDLE push[/] (REST send → EXISTS at an idling aioimaplib client, {count} mails)"
    )
    console.print(f"p50 {ms(p50)}   p99 [bold]{ms(p99)}[/]   max {ms(max(latencies))}")
    console.print(f"goal p99 < {GOAL_IDLE_P99 * 1000:.0f} ms: {mark(p99 < GOAL_IDLE_P99)}")


async def big_select(args: argparse.Namespace, run: GatewayRun) -> None:
    filled = await fill_heavy(run, args.select_messages)
    heavy = Server("gateway", run.imap_port, HEAVY, PASSWORD)
    times = []
    for _ in range(args.rounds):
        seconds, exists = await timed_select(heavy)
        if exists != args.select_messages:
            raise RuntimeError(f"SELECT reported {exists} EXISTS, not {args.select_messages}")
        times.append(seconds)
    console.print()
    console.print(
        f"[bold]SELECT INBOX of {args.select_messages:,} messages[/] "
        f"(filled in {filled:.1f} s by bulk inserts)"
    )
    runs = ", ".join(f"{t * 1000:.0f}" for t in times)
    best = statistics.median(times)
    console.print(f"median [bold]{ms(best)}[/]   runs: {runs} ms")
    console.print(f"goal < {GOAL_SELECT:.0f} s: {mark(best < GOAL_SELECT)}")


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/imap_fetch.py", "--messages", str(args.messages)]
    argv += ["--rounds", str(args.rounds), "--idle-mails", str(args.idle_mails)]
    argv += ["--select-messages", str(args.select_messages)]
    if args.skip_dovecot:
        argv.append("--skip-dovecot")
    if args.database_url:
        argv += ["--database-url", args.database_url]
    return shlex.join(argv)


async def main(args: argparse.Namespace) -> int:
    title = f"[bold]imap_fetch[/]  {reproduce(args)}"
    machine = "gateway 1 process, Dovecot its own"
    async with gateway_run(args, title, machine, keep=args.keep) as run:
        key = await setup_accounts(run.base_url)
        if args.select_messages:  # first: the other parts do not change heavy's INBOX
            await big_select(args, run)
        if args.skip_dovecot and not args.idle_mails:
            return 0
        started = asyncio.get_running_loop().time()
        await fill_over_rest(run.base_url, key, args.messages)
        sent = asyncio.get_running_loop().time() - started
        console.print(f"filled       {args.messages} mails over REST in {sent:.1f} s")
        gw = Server("gateway", run.imap_port, READER, PASSWORD)
        cold = await fetch_session(gw, f"1:{args.messages}", ITEMS)
        console.print(
            f"cold FETCH   the first FETCH 1:{args.messages} {ITEMS} after the mails were "
            f"written (renders them): {ms(cold.fetch)}"
        )
        if not args.skip_dovecot:
            async with running_dovecot(run.workdir, READER, PASSWORD, plaintext=True) as dovecot:
                copied = await copy_to_dovecot(run.imap_port, dovecot)
                assert copied == args.messages, copied
                dove = Server("Dovecot", dovecot.port, READER, PASSWORD)
                master = int((dovecot.root / "run" / "master.pid").read_text())
                cpus = {
                    gw.name: ServerCpu(run.child, run.database_url),
                    dove.name: ServerCpu(master),
                }
                await compare(gw, dove, args, cpus)
        if args.idle_mails:
            await idle_push(gw, run.base_url, key, args.idle_mails)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="IMAP FETCH and mbsync beside Dovecot.")
    parser.add_argument("--messages", type=int, default=1000, help="alice's INBOX (1000)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds of each (3)")
    parser.add_argument(
        "--idle-mails", type=int, default=100, help="IDLE pushes timed (100; 0 skips)"
    )
    parser.add_argument(
        "--select-messages", type=int, default=100_000, help="heavy's INBOX (100000; 0 skips)"
    )
    add_database_url(parser)
    parser.add_argument(
        "--skip-dovecot", action="store_true", help="no FETCH/mbsync comparison with Dovecot"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, database)")
    args = parser.parse_args(argv)
    if min(args.messages, args.rounds) < 1 or min(args.idle_mails, args.select_messages) < 0:
        parser.error("--messages and --rounds must be >= 1, the others >= 0")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

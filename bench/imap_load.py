"""IMAP under concurrency: clients sending a mix of commands, the gateway beside Dovecot.

    .venv/bin/python bench/imap_load.py [--clients 10 --seconds 10 --rounds 2 --messages 200]
                                        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Starts the gateway (`agentmail serve`, its own process, fresh data dir or fresh
   PostgreSQL database) and Dovecot (plain IMAP on loopback, tests/support/dovecot.py).
2. An agent sends `--messages` mails to alice over REST; every one, as the gateway
   serves it, goes into Dovecot's INBOX too, so both serve the same messages.
3. Rounds alternate the servers (one short untimed warm-up of each first): `--clients`
   connections LOGIN and SELECT INBOX, then each sends commands back to back for
   `--seconds`, drawn with the same seeds from one mix (bench/_imap_mix.py: NOOP,
   LIST, STATUS, a 20-message FETCH of FLAGS and ENVELOPE, one message's BODY.PEEK[],
   SEARCH UNSEEN). Nothing changes the mailbox meanwhile: every command but the
   content ones could be answered from what the session already knows.
4. Prints commands per second, each command's p50 and p99, and the server's CPU
   milliseconds per command (its process tree; for the gateway on PostgreSQL also the
   backends serving its database), with `uptime`.

Goals (docs/performance.md): the gateway's commands/s at least a third of Dovecot's; NOOP p99
under 10 ms. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from _children import start_py_spy
from _cli import add_database_url
from _db import console
from _imap_fill import PASSWORD, READER, copy_to_dovecot, fill_over_rest, gateway_run
from _imap_fill import setup_accounts as accounts
from _imap_mix import LINES, NAMES, Timings, run_clients
from _load import percentile
from _wrk import ServerCpu, load_average

from tests.support.dovecot import running_dovecot

GOAL_SHARE, GOAL_NOOP_P99 = 1 / 3, 0.010


@dataclass
class Server:
    name: str
    port: int
    cpu: ServerCpu
    timings: Timings
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    client_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.timings.count / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu_seconds / self.timings.count if self.timings.count else 0.0


async def one_round(server: Server, args: argparse.Namespace, seed: int, seconds: float) -> Timings:
    before, client_before = await server.cpu.sample(), time.process_time()
    spy = None
    if args.py_spy and seed >= 0 and server.name == "gateway":
        spy = await start_py_spy(server.cpu.pid, Path(f"{args.py_spy}.{seed}"), seconds)
    started = time.perf_counter()
    timings = await run_clients(
        server.port,
        READER,
        PASSWORD,
        clients=args.clients,
        seconds=seconds,
        messages=args.messages,
        seed=seed,
        only=args.only,
    )
    elapsed = time.perf_counter() - started
    after = await server.cpu.sample()
    if spy is not None:
        await spy.wait()
    if seed >= 0:  # a timed round
        server.timings.add(timings)
        server.seconds += elapsed
        server.cpu_seconds += ServerCpu.spent(before, after)
        server.client_cpu += time.process_time() - client_before
    return timings


def uptime() -> str:
    done = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or load_average()


def report(gw: Server, dove: Server, args: argparse.Namespace) -> None:
    console.print()
    console.print(
        f"[bold]{args.clients} clients, {args.rounds} rounds of {args.seconds:g} s each[/] "
        f"(INBOX of {args.messages} messages)"
    )
    console.print(f"{'':10}{'cmd/s':>9}{'commands':>10}{'CPU ms/cmd':>12}{'client CPU ms/cmd':>19}")
    for server in (gw, dove):
        client = 1000 * server.client_cpu / server.timings.count if server.timings.count else 0
        console.print(
            f"{server.name:10}{server.rate:>9.0f}{server.timings.count:>10}"
            f"{server.cpu_ms:>12.2f}{client:>19.2f}"
        )
    console.print()
    console.print(f"{'latency ms':16}{'gateway p50':>12}{'p99':>9}{'Dovecot p50':>13}{'p99':>9}")
    sent = [name for name in NAMES if not args.only or name in args.only]
    for name in sent:
        cells = []
        for server in (gw, dove):
            times = [t * 1000 for t in server.timings.by_name[name]]
            cells.append(f"{percentile(times, 50):>12.2f}{percentile(times, 99):>9.2f}")
        console.print(f"{name:16}{cells[0]}{' ' + cells[1]}   {LINES[name]}")
    share = gw.rate / dove.rate if dove.rate else 0.0
    noop = percentile(gw.timings.by_name["NOOP"], 99)

    def mark(met: bool) -> str:
        return "[green]met[/]" if met else "[red]not met[/]"

    console.print()
    met = mark(share >= GOAL_SHARE)
    console.print(f"gateway / Dovecot cmd/s   {share:.2f}  (goal >= 1/3: {met})")
    if "NOOP" in sent:
        console.print(
            f"gateway NOOP p99          {noop * 1000:.2f} ms  "
            f"(goal < {GOAL_NOOP_P99 * 1000:.0f} ms: {mark(noop < GOAL_NOOP_P99)})"
        )
    console.print(f"uptime    {uptime()}")


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/imap_load.py", "--clients", str(args.clients)]
    argv += ["--seconds", f"{args.seconds:g}", "--rounds", str(args.rounds)]
    argv += ["--messages", str(args.messages)]
    if args.only:
        argv += ["--only", ",".join(n for n in NAMES if n in args.only)]
    if args.database_url:
        argv += ["--database-url", args.database_url]
    return shlex.join(argv)


async def main(args: argparse.Namespace) -> int:
    title = f"[bold]imap_load[/]  {reproduce(args)}"
    console.print(f"uptime       {uptime()}")
    async with gateway_run(args, title, "gateway 1 process, Dovecot its own") as run:
        key = await accounts(run.base_url)
        await fill_over_rest(run.base_url, key, args.messages)
        async with running_dovecot(run.workdir, READER, PASSWORD, plaintext=True) as dovecot:
            copied = await copy_to_dovecot(run.imap_port, dovecot)
            assert copied == args.messages, copied
            master = int((dovecot.root / "run" / "master.pid").read_text())
            gw = Server("gateway", run.imap_port, ServerCpu(run.child, run.database_url), Timings())
            dove = Server("Dovecot", dovecot.port, ServerCpu(master), Timings())
            for server in (gw, dove):  # warm-up: caches, Dovecot's index of the new Maildir
                await one_round(server, args, -1, min(2.0, args.seconds))
            for number in range(args.rounds):
                for server in (gw, dove):
                    timings = await one_round(server, args, number, args.seconds)
                    console.print(
                        f"round {number + 1}/{args.rounds} {server.name:8} "
                        f"{timings.count / args.seconds:6.0f} cmd/s   load {load_average()}"
                    )
            report(gw, dove, args)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="IMAP mixed commands, gateway and Dovecot.")
    parser.add_argument("--clients", type=int, default=10, help="connections (10)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds a round (10)")
    parser.add_argument("--rounds", type=int, default=2, help="timed rounds of each server (2)")
    parser.add_argument("--messages", type=int, default=200, help="alice's INBOX (200)")
    add_database_url(parser)
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated commands of the mix to send, alone: "
        + ", ".join(f"{name} ({line})" for name, line in LINES.items()),
    )
    parser.add_argument(
        "--py-spy",
        metavar="PREFIX",
        default="",
        help="profile the gateway's timed rounds with py-spy into PREFIX.<round> (raw stacks)",
    )
    args = parser.parse_args(argv)
    args.only = frozenset(filter(None, args.only.split(",")))
    if args.only - set(NAMES):
        parser.error(f"--only takes {', '.join(NAMES)}")
    if min(args.clients, args.rounds, args.messages) < 1 or args.seconds <= 0:
        parser.error("--clients, --rounds, --messages >= 1 and --seconds > 0")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

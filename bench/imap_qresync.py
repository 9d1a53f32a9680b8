"""IMAP resync: QRESYNC beside a full flag fetch, on a 10,000-message INBOX after 10 changes.

    .venv/bin/python bench/imap_qresync.py [--messages 10000 --changes 10 --rounds 5]
                                           [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Starts the gateway (`agentmail serve`, its own process, fresh data dir or fresh
   PostgreSQL database) and fills heavy's INBOX with `--messages` mails by bulk
   inserts (the rows the write path makes; bench/_imap_fill.py).
2. A client enables QRESYNC, selects INBOX and remembers UIDVALIDITY and
   HIGHESTMODSEQ, as a phone does before it goes offline.
3. Another IMAP session makes `--changes` changes: half flag a message, a fifth mark
   one read, the rest MOVE one to Trash.
4. Rounds, each on a new connection after LOGIN: the QRESYNC resync, `SELECT INBOX
   (QRESYNC (uidvalidity modseq 1:N))` until its tagged OK (it reads the changes:
   VANISHED and a FETCH per changed message); beside it what a client without
   QRESYNC does, `SELECT INBOX` and `UID FETCH 1:* (FLAGS)`, each timed.

Goal (docs/performance.md): the QRESYNC resync under 50 ms. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shlex
import statistics
import sys
import time
from pathlib import Path

from _children import start_py_spy
from _cli import add_database_url
from _db import console
from _imap_fill import HEAVY, PASSWORD, fill_heavy, gateway_run, setup_accounts
from _wrk import load_average

from tests.support.raw_imap import RawImap

GOAL = 0.050


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


async def logged_in(port: int) -> RawImap:
    raw = await RawImap.open(port)
    reply = await raw.command(b'L LOGIN %s "%s"' % (HEAVY.encode(), PASSWORD.encode()))
    if not reply[-1].startswith(b"L OK"):
        raise RuntimeError(reply)
    return raw


async def timed(raw: RawImap, line: bytes) -> tuple[float, list[bytes]]:
    started = time.perf_counter()
    reply = await raw.command(line)
    seconds = time.perf_counter() - started
    if reply[-1].split()[1] != b"OK":
        raise RuntimeError(reply[-1])
    return seconds, reply


def code(lines: list[bytes], name: bytes) -> int:
    for line in lines:
        match = re.search(rb"\[" + name + rb" (\d+)\]", line)
        if match:
            return int(match.group(1))
    raise RuntimeError(f"no {name!r} in the reply")


async def change(port: int, count: int) -> None:
    """`count` changes by another session: flags, \\Seen, MOVE to Trash, spread out."""
    raw = await logged_in(port)
    try:
        await timed(raw, b"s SELECT INBOX")
        for n in range(count):
            uid = 1 + n * 997
            if n % 2 == 0:
                await timed(raw, b"c UID STORE %d +FLAGS.SILENT (\\Flagged)" % uid)
            elif n % 5 == 1:
                await timed(raw, b"c UID STORE %d FLAGS.SILENT (\\Seen)" % uid)
            else:
                await timed(raw, b"c UID MOVE %d Trash" % uid)
    finally:
        await raw.close()


async def resync(port: int, line: bytes) -> tuple[float, list[bytes]]:
    """A new connection's QRESYNC SELECT, timed (LOGIN and ENABLE before are not)."""
    raw = await logged_in(port)
    try:
        await timed(raw, b"e ENABLE QRESYNC")
        return await timed(raw, line)
    finally:
        await raw.close()


async def profile(args: argparse.Namespace, gateway: int, port: int, line: bytes) -> None:
    """Resyncs back to back while py-spy samples the gateway (`--py-spy`)."""
    spy = await start_py_spy(gateway, Path(args.py_spy), args.profile_seconds)
    count = 0
    while spy.returncode is None:
        await resync(port, line)
        count += 1
        await asyncio.sleep(0)
    console.print(f"py-spy       {count} resyncs in {args.profile_seconds:g} s: {args.py_spy}")


async def measure(args: argparse.Namespace, port: int, gateway: int) -> None:
    raw = await logged_in(port)
    try:
        await timed(raw, b"e ENABLE QRESYNC")
        _, selected = await timed(raw, b"s SELECT INBOX")
        validity, modseq = code(selected, b"UIDVALIDITY"), code(selected, b"HIGHESTMODSEQ")
    finally:
        await raw.close()
    await change(port, args.changes)
    resyncs, selects, fetches = [], [], []
    line = b"q SELECT INBOX (QRESYNC (%d %d 1:%d))" % (validity, modseq, args.messages)
    for _ in range(args.rounds + 1):  # the first round warms up (caches, connections)
        seconds, reply = await resync(port, line)
        changed = sum(1 for r in reply if b" FETCH (" in r or r.startswith(b"* VANISHED"))
        resyncs.append(seconds)
        raw = await logged_in(port)
        try:
            select, _ = await timed(raw, b"s SELECT INBOX")
            fetch, flags = await timed(raw, b"f UID FETCH 1:* (FLAGS)")
            if len(flags) - 1 < args.messages - args.changes:
                raise RuntimeError(f"UID FETCH returned {len(flags) - 1} messages")
            selects.append(select)
            fetches.append(fetch)
        finally:
            await raw.close()
    resync_time, select, fetch = (statistics.median(t[1:]) for t in (resyncs, selects, fetches))
    console.print()
    console.print(
        f"[bold]resync of INBOX ({args.messages:,} messages) after {args.changes} changes[/] "
        f"(median of {args.rounds}; {changed} VANISHED/FETCH lines in the QRESYNC reply)"
    )
    console.print(f"QRESYNC  SELECT … (QRESYNC (…))       [bold]{ms(resync_time)}[/]")
    console.print(f"full     SELECT INBOX                  {ms(select)}")
    console.print(f"full     UID FETCH 1:* (FLAGS)         {ms(fetch)}")
    console.print(f"full     together                      [bold]{ms(select + fetch)}[/]")
    met = "[green]met[/]" if resync_time < GOAL else "[red]not met[/]"
    console.print(f"goal: QRESYNC resync < {GOAL * 1000:.0f} ms: {met}")
    console.print(f"uptime       {load_average()} (load average)")
    if args.py_spy:
        await profile(args, gateway, port, line)


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/imap_qresync.py", "--messages", str(args.messages)]
    argv += ["--changes", str(args.changes), "--rounds", str(args.rounds)]
    if args.database_url:
        argv += ["--database-url", args.database_url]
    return shlex.join(argv)


async def main(args: argparse.Namespace) -> int:
    title = f"[bold]imap_qresync[/]  {reproduce(args)}"
    async with gateway_run(args, title, "gateway 1 process") as run:
        await setup_accounts(run.base_url)
        await fill_heavy(run, args.messages)
        await measure(args, run.imap_port, run.child.proc.pid)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="QRESYNC resync beside a full flag fetch.")
    parser.add_argument("--messages", type=int, default=10_000, help="heavy's INBOX (10000)")
    parser.add_argument("--changes", type=int, default=10, help="changes before the resync (10)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (5)")
    add_database_url(parser)
    parser.add_argument(
        "--py-spy",
        metavar="FILE",
        default="",
        help="afterwards, resyncs back to back while py-spy samples the gateway into FILE",
    )
    parser.add_argument(
        "--profile-seconds", type=float, default=10.0, help="how long py-spy samples (10)"
    )
    args = parser.parse_args(argv)
    if args.messages < 1 or args.rounds < 1 or not 0 <= args.changes * 997 < args.messages:
        parser.error("--messages and --rounds >= 1; --changes * 997 below --messages")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

"""IMAP before and after a change: two gateways side by side, rounds interleaved.

    .venv/bin/python bench/imap_pair.py --base /work/wt/me-base [--new .]
        [--rounds 6 --seconds 4 --warm 10 --clients 10 --only NOOP,LIST,STATUS,SEARCH]

`imap_load.py` measures one tree beside Dovecot; comparing two trees with it means two
runs, each with its own fill and a short warm-up, and on a shared machine the load
moved the CPU per command of the same tree by half between runs (the content cache
still filling in a one-round run was most of it). Here both gateways (each tree first
on its own `PYTHONPATH`, SQLite, the same 200 mails over REST) run at once, are
warmed up for `--warm` seconds, then take the same seeded mix (bench/_imap_mix.py)
in alternate rounds, A B B A A B …, so both see the same machine. Prints each
round's commands per second, CPU milliseconds per command (the gateway's process
tree) and NOOP p99 with the load, and the totals. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from _children import Child
from _imap_fill import (
    PASSWORD,
    READER,
    fill_over_rest,
    setup_accounts,
    start_gateway,
)
from _imap_mix import NAMES, run_clients
from _load import percentile
from _wrk import ServerCpu, load_average

MESSAGES = 200


async def start(root: Path, workdir: Path) -> tuple[Child, int]:
    """A gateway running `root`'s code on a fresh SQLite file, alice's INBOX filled."""
    child, imap_port, _ = await start_gateway(workdir, "", root)
    key = await setup_accounts(child.base_url)
    await fill_over_rest(child.base_url, key, MESSAGES)
    return child, imap_port


async def main(args: argparse.Namespace) -> int:
    trees = {"base": args.base, "new": args.new}
    print(f"base {trees['base']}\nnew  {trees['new']}\nload {load_average()}")
    workdirs: list[Path] = []
    servers: dict[str, tuple[Child, int]] = {}
    try:
        for name, root in trees.items():
            workdirs.append(Path(tempfile.mkdtemp(prefix=f"agentmail-imap-pair-{name}-")))
            servers[name] = await start(root, workdirs[-1])
        mix = {"clients": args.clients, "messages": MESSAGES, "only": args.only}
        for _, port in servers.values():  # warm-up: the content caches fill
            await run_clients(port, READER, PASSWORD, seconds=args.warm, seed=-1, **mix)
        cpu_seconds = dict.fromkeys(trees, 0.0)
        commands = dict.fromkeys(trees, 0)
        for number in range(args.rounds):
            order = list(servers) if number % 2 == 0 else list(servers)[::-1]
            for name in order:
                child, port = servers[name]
                cpu = ServerCpu(child)
                before = await cpu.sample()
                timings = await run_clients(
                    port, READER, PASSWORD, seconds=args.seconds, seed=number, **mix
                )
                spent = ServerCpu.spent(before, await cpu.sample())
                cpu_seconds[name] += spent
                commands[name] += timings.count
                noop = [t * 1000 for t in timings.by_name["NOOP"]]
                print(
                    f"round {number + 1} {name:5}{timings.count / args.seconds:7.0f} cmd/s"
                    f"{1000 * spent / max(timings.count, 1):7.2f} ms CPU/cmd"
                    f"   NOOP p99 {percentile(noop, 99):7.1f} ms   load {load_average()}",
                    flush=True,
                )
        for name in trees:
            per = 1000 * cpu_seconds[name] / max(commands[name], 1)
            print(f"total {name:5}{per:7.3f} ms CPU/cmd over {commands[name]} commands")
    finally:
        for child, _ in servers.values():
            await child.stop()
        for workdir in workdirs:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="IMAP mix: two trees, rounds interleaved.")
    parser.add_argument("--base", required=True, help="the tree before the change")
    parser.add_argument("--new", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--rounds", type=int, default=6, help="timed rounds of each (6)")
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds a round (4)")
    parser.add_argument("--warm", type=float, default=10.0, help="warm-up seconds each (10)")
    parser.add_argument("--clients", type=int, default=10, help="connections (10)")
    parser.add_argument("--only", default="", help="commands of the mix: " + ", ".join(NAMES))
    args = parser.parse_args()
    args.only = frozenset(filter(None, args.only.split(",")))
    args.base, args.new = Path(args.base).resolve(), Path(args.new).resolve()
    if args.only - set(NAMES):
        parser.error(f"--only takes {', '.join(NAMES)}")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

"""What a transaction costs around its statements, in process: the store's own overhead.

    PYTHONPATH=$PWD .venv/bin/python bench/store_overhead.py [--database-url postgresql://…]
        [--calls 1000] [--sends 300] [--concurrent 0]

Three loops on a fresh store, one call after another, each timed three times (the
best is printed, since a loaded machine only ever adds): a one-statement
`store.read`, a `store.write` of three `SELECT 1`, and a `send_mail` from a human
to one of 10 agents (as `send_cpu.py`). Beside each, the event-loop passes per call,
which no load moves: on PostgreSQL every round trip is a pass, and so is every
step of the asyncio bridge around a transaction. `--concurrent N` adds N senders
at once (N humans, one each), the case where SQLite's group commit shares a
COMMIT and PostgreSQL gives each write its own. Run it against another tree with
`PYTHONPATH=/that/tree` for a paired figure (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable

from _db import fresh_store
from send_cpu import AGENTS, BODY, D, rest_sender, setup
from sqlalchemy import text
from sqlalchemy.orm import Session

from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.store.engine import Store

Call = Callable[[int], Awaitable[object]]


def _one(session: Session) -> object:
    return session.execute(text("SELECT 1")).scalar()


def _three(session: Session) -> None:
    for _ in range(3):
        session.execute(text("SELECT 1")).scalar()


class Passes:
    """Counts the event loop's passes (`_run_once`), the figure no load moves."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.count = 0
        run_once = loop._run_once  # type: ignore[attr-defined]

        def counted() -> None:
            self.count += 1
            run_once()

        loop._run_once = counted  # type: ignore[attr-defined]


async def best_of_three(call: Call, calls: int, passes: Passes) -> tuple[float, float]:
    for index in range(30):
        await call(-1 - index)
    best, before = float("inf"), passes.count
    for rep in range(3):
        cpu = time.process_time()
        for index in range(calls):
            await call(rep * 100_000 + index)
        best = min(best, (time.process_time() - cpu) / calls * 1000)
    return best, (passes.count - before) / calls / 3


async def concurrent_sends(store: Store, senders: int, sends: int) -> tuple[float, float]:
    for n in range(senders):
        await create_user(store, f"h{n}", "bench-password")

    async def sender(n: int, indexes: list[int]) -> None:
        for index in indexes:
            request = SendRequest(to=f"agent{index % AGENTS}@ws", subject=f"c {index}", body=BODY)
            await send_mail(store, D, Principal(kind="human", name=f"h{n}"), request)

    shares = [list(range(n, sends, senders)) for n in range(senders)]
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(sender(n, share) for n, share in enumerate(shares)))
    return (time.process_time() - cpu) / sends * 1000, sends / (time.perf_counter() - wall)


async def main(args: argparse.Namespace) -> int:
    set_bcrypt_rounds(4)
    async with fresh_store(args.database_url) as (store, described):
        await setup(store)
        passes = Passes(asyncio.get_running_loop())
        send = rest_sender(store)
        loops: list[tuple[str, Call, int]] = [
            ("read", lambda _i: store.read(_one), args.calls),
            ("write", lambda _i: store.write(_three), args.calls),
            ("send", send, args.sends),
        ]
        figures = []
        for name, call, calls in loops:
            ms, per_call = await best_of_three(call, calls, passes)
            figures.append(f"{name} {ms:.2f} ms ({per_call:.0f} passes)")
        if args.concurrent:
            ms, rate = await concurrent_sends(store, args.concurrent, args.sends * 2)
            figures.append(f"{args.concurrent} senders {ms:.2f} ms, {rate:.0f}/s")
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{described.split(' (')[0]:<16} " + ", ".join(figures) + f"   (load {load})")
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=1000, help="reads and writes per loop")
    parser.add_argument("--sends", type=int, default=300, help="sends per loop")
    parser.add_argument("--concurrent", type=int, default=0, help="senders at once (0: none)")
    parser.add_argument("--database-url", default="", help="default: a temp SQLite file")
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

"""Commit → stream latency in process, on a busy loop: what the SSE fan-out adds.

    PYTHONPATH=$PWD .venv/bin/python bench/push_latency.py [--runs 1] [--busy-ms 0.3]

A real SQLite store on a temp file; 50 streams driven as `api/routes/events.py`
drives them (read until complete, then take what was pushed, then wait); 20
writers, each writing 60 transactions of one event to a rotating stream; and 20
tasks that each burn `--busy-ms` of CPU per loop turn, standing in for the HTTP
work a saturated gateway's loop carries (parsing, routing, dependencies). The
figure is the time from an event's `created_at` (stamped in its transaction, so
it includes the rest of its group and the COMMIT) to the stream taking it: every
loop turn between the COMMIT and the stream's wake-up is a turn of all that work.
No HTTP and no client, so neither the client's loop lag nor the POST's queueing is
in it. Run against another tree with `PYTHONPATH=/that/tree` for a paired figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from sqlalchemy.orm import Session

from core.store.engine import Store, database_url
from core.store.events import emit, events_after
from core.store.migrate import migrate
from core.store.models import utcnow

STREAMS, WRITERS, BUSY, WRITES = 50, 20, 20, 60


async def one_run(busy_seconds: float) -> list[float]:
    store = Store(database_url("", Path(tempfile.mkdtemp()) / "agentmail.db"))
    await migrate(store)
    latencies: list[float] = []
    stopping = asyncio.Event()

    async def stream(name: str) -> None:
        with store.bus.subscribe(name, events=True) as subscription:
            cursor = 0
            while not stopping.is_set():
                subscription.clear()
                if subscription.complete:
                    batch = subscription.take(cursor)
                else:
                    generation = subscription.generation
                    read = await events_after(store, name, cursor, 500)
                    batch = read.events
                    subscription.caught_up(read.through, generation)
                now = utcnow()
                for event in batch:
                    cursor = event.id
                    if event.created_at is not None:
                        latencies.append((now - event.created_at).total_seconds() * 1000)
                await subscription.wait()

    async def busy() -> None:
        while not stopping.is_set():
            until = time.perf_counter() + busy_seconds
            while time.perf_counter() < until:
                pass
            await asyncio.sleep(0)

    async def writer(k: int) -> None:
        for i in range(WRITES):
            recipient = f"s{(k * WRITES + i) % STREAMS}"

            def run(session: Session, recipient: str = recipient) -> None:
                emit(session, [recipient], "new_mail", {"to": recipient})

            await store.write(run)

    streams = [asyncio.create_task(stream(f"s{i}")) for i in range(STREAMS)]
    await asyncio.sleep(0.5)  # every stream has read and waits
    burners = [asyncio.create_task(busy()) for _ in range(BUSY)]
    await asyncio.gather(*(writer(k) for k in range(WRITERS)))
    await asyncio.sleep(0.5)
    stopping.set()
    for task in burners + streams:
        task.cancel()
    await asyncio.gather(*burners, *streams, return_exceptions=True)
    await store.close()
    return sorted(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--busy-ms", type=float, default=0.3)
    args = parser.parse_args()
    for _ in range(args.runs):
        lat = asyncio.run(one_run(args.busy_ms / 1000))
        q = [lat[min(len(lat) - 1, int(p * len(lat)))] for p in (0.5, 0.9, 0.99)]
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"{len(lat)} events: created_at → stream p50 {q[0]:.1f} ms, p90 {q[1]:.1f}, "
            f"p99 {q[2]:.1f}   (load {load})"
        )


if __name__ == "__main__":
    main()

"""CPU per mail by thread: the event loop's, the SQLite readers', the writer's.

    PYTHONPATH=$PWD .venv/bin/python bench/send_threads.py [--path rest|smtp] [--mails 400]

The same senders as `send_cpu.py` (in process, SQLite, one mail after another), with
each worker thread's CPU summed around the work items it runs (`time.thread_time`,
no profiler, so nothing is inflated). On the SMTP path the reader threads' share is
the RCPT check's read transaction; the writer's is the write and its COMMIT. It wraps
`concurrent.futures`' work item (a private class): a bench tool, not gateway code.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import thread as futures_thread
from pathlib import Path
from typing import Any

from _db import fresh_store
from send_cpu import rest_sender, setup, smtp_sender

from core.identity.security import set_bcrypt_rounds
from core.store.blobs import BlobStore

_spent: dict[str, float] = {}
_run = futures_thread._WorkItem.run  # type: ignore[attr-defined]


def _timed_run(self: Any) -> None:
    started = time.thread_time()
    try:
        _run(self)
    finally:
        name = threading.current_thread().name.rsplit("_", 1)[0]
        _spent[name] = _spent.get(name, 0.0) + time.thread_time() - started


async def main(args: argparse.Namespace) -> int:
    futures_thread._WorkItem.run = _timed_run  # type: ignore[attr-defined]
    set_bcrypt_rounds(4)
    async with fresh_store("") as (store, _described):
        await setup(store)
        blobs = BlobStore(Path(tempfile.mkdtemp(prefix="agentmail-blobs-")))
        send = smtp_sender(store, blobs) if args.path == "smtp" else rest_sender(store)
        for index in range(args.warmup):
            await send(-1 - index)
        _spent.clear()
        before, loop = os.times(), time.thread_time()
        for index in range(args.mails):
            await send(index)
        loop = time.thread_time() - loop
        after = os.times()
    ms = 1000 / args.mails
    process = (after.user + after.system - before.user - before.system) * ms
    threads = "  ".join(f"{name} {spent * ms:.2f}" for name, spent in sorted(_spent.items()))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.path:<4} loop {loop * ms:.2f}  {threads}  process {process:.2f} ms per mail"
        f"  ({args.mails} mails, load {load})"
    )
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--path", choices=("rest", "smtp"), default="smtp")
    parser.add_argument("--mails", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

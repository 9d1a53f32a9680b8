"""Where the SQLite writer thread's CPU goes per mail, without a profiler's distortion.

    PYTHONPATH=$PWD .venv/bin/python bench/writer_phases.py [--path rest|smtp] [--mails 1000]

`send_cpu.py`'s workload (REST: a human mails one of 10 agents; SMTP: the
handler's hooks with a 4 KB message), with the thread CPU time (`thread_time`)
of the writer thread's phases summed per mail:

- the whole job (`GroupCommitWriter._drain`), and inside it the write function
  with its events (`with_events`: the send itself, then `flush_events`), and the
  hand-back to the loop (`_resolve`); the rest is the transaction's machinery
  (connection, BEGIN, Session, COMMIT, close);
- the sqlite3 C calls (execute, executemany, fetchall, commit), through a cursor
  and connection subclass given to the engine: the library itself, triggers (the
  search index) and, in COMMIT, the WAL's write and fsync (their system CPU too).

cProfile and py-spy were tried first: cProfile's per-call cost (a `thread_time`
timer is a system call) made Python look three times its size, and py-spy's
samples counted the fsync wait and the idle queue as work. A few clock reads
per phase cost ~1 µs each; the subclassed cursor adds one Python call per
statement, so the figures run a few per cent high.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _db import fresh_store
from send_cpu import rest_sender, setup, smtp_sender

import core.store.committed_events as written
import core.store.engine as store_engine
import core.store.sqlite.engines as store_sqlite
from core.identity.security import set_bcrypt_rounds
from core.store.blobs import BlobStore
from core.store.sqlite import group_commit

SPENT: dict[str, float] = collections.defaultdict(float)
_clock = time.thread_time


class _Cursor(sqlite3.Cursor):
    def execute(self, sql: str, *args: Any) -> Any:
        start = _clock()
        try:
            return super().execute(sql, *args)
        finally:
            spent = _clock() - start
            SPENT["sqlite3: execute"] += spent
            SPENT["sqlite3:   " + " ".join(sql.split()[:3])[:36]] += spent

    def executemany(self, *args: Any) -> Any:
        start = _clock()
        try:
            return super().executemany(*args)
        finally:
            SPENT["sqlite3: executemany"] += _clock() - start

    def fetchall(self) -> list[Any]:
        start = _clock()
        try:
            return super().fetchall()
        finally:
            SPENT["sqlite3: fetchall"] += _clock() - start


class _Connection(sqlite3.Connection):
    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)

    def commit(self) -> None:
        start = _clock()
        try:
            super().commit()
        finally:
            SPENT["sqlite3: commit (WAL write, fsync)"] += _clock() - start


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = _clock()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[label] += _clock() - start

    return run


def instrument() -> None:
    make_engine: Any = vars(store_sqlite)["create_engine"]

    def create_engine(url: str, **kwargs: Any) -> Any:
        kwargs["connect_args"] = {**kwargs.get("connect_args", {}), "factory": _Connection}
        return make_engine(url, **kwargs)

    vars(store_sqlite)["create_engine"] = create_engine
    writer: Any = group_commit.GroupCommitWriter
    writer._drain = _timed("writer: the whole job", writer._drain)
    group_commit._resolve = _timed(
        "writer:   _resolve (hand-back to the loop)", group_commit._resolve
    )
    names = vars(store_engine)  # the name the store's write calls
    names["with_events"] = _timed("writer:   with_events (send + events)", names["with_events"])
    written.flush_events = _timed("writer:     flush_events", written.flush_events)


async def main(args: argparse.Namespace) -> int:
    instrument()
    set_bcrypt_rounds(4)
    async with fresh_store("") as (store, _described):
        await setup(store)
        blobs = BlobStore(Path(tempfile.mkdtemp(prefix="agentmail-blobs-")))
        send = rest_sender(store) if args.path == "rest" else smtp_sender(store, blobs)
        for index in range(30):
            await send(-1 - index)
        SPENT.clear()
        before, loop = os.times(), _clock()
        for index in range(args.mails):
            await send(index)
        after, loop = os.times(), _clock() - loop
    ms = 1000 / args.mails
    cpu = after.user + after.system - before.user - before.system
    print(
        f"{args.path}: {cpu * ms:.3f} ms CPU per mail (user {(after.user - before.user) * ms:.3f},"
        f" system {(after.system - before.system) * ms:.3f}; loop's thread {loop * ms:.3f}),"
        f" load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    for label in sorted(SPENT):
        print(f"  {SPENT[label] * ms:7.3f} ms  {label}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--path", choices=("rest", "smtp"), default="rest")
    parser.add_argument("--mails", type=int, default=1000)
    sys.exit(asyncio.run(main(parser.parse_args())))

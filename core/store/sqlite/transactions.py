"""SQLite's transactions: writes in one writer thread, grouped; reads in a few reader threads.

The whole transaction runs in a thread, not one statement at a time: one thread
hand-off per transaction. Writes go to one dedicated writer thread (`BEGIN
IMMEDIATE`, so writers queue instead of failing with "database is locked");
writes queued together share one COMMIT, each in its own SAVEPOINT
(core/store/sqlite/group_commit.py), so concurrent writers share one fsync.
Reads run in a small pool of reader threads with WAL snapshots. Each of these
threads keeps its connection (core/store/sqlite/thread_connections.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from core.store.committed_events import Committed
from core.store.credentials import watch_credential_writes
from core.store.port import register_backend
from core.store.sqlite.backend import SqliteBackend
from core.store.sqlite.engines import sqlite_engine
from core.store.sqlite.group_commit import GroupCommitWriter
from core.store.sqlite.thread_connections import HeldConnections

T = TypeVar("T")
READERS = 4


class SqliteTransactions:
    """The writer thread and its group commit, the reader threads, their engines."""

    reads_in_own_task = False  # a read in a thread runs to its end whatever its caller does

    def __init__(self, url: str, group_limit: int) -> None:
        self.write_engine = sqlite_engine(url, "BEGIN IMMEDIATE", pool_size=1)
        self.read_engine = sqlite_engine(url, "BEGIN", pool_size=READERS)
        register_backend(type(self.write_engine.dialect), SqliteBackend())
        self._held_reads = HeldConnections(self.read_engine)  # one per reader thread
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="agentmail-sqlite-writer")
        self._readers = ThreadPoolExecutor(READERS, thread_name_prefix="agentmail-sqlite-reader")
        self._group_writer = GroupCommitWriter(self.write_engine, self._writer, group_limit)
        watch_credential_writes(self.write_engine)

    @property
    def engines(self) -> list[Engine]:
        return [self.write_engine, self.read_engine]

    async def read(self, fn: Callable[[Session], T]) -> T:
        """`fn` in one WAL snapshot, in a reader thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._held_reads.read, fn)

    async def write(
        self,
        run: Callable[[Session], tuple[T, Committed]],
        told: Callable[[Committed], None],
        retried: Callable[[], None],
    ) -> T:
        """`run` in the writer thread's next group; `told` runs on the loop in the
        callback that ends the write (the first turn after its COMMIT)."""
        result, _ = await self._group_writer.submit(run, told)
        return result

    async def run_on_connection(self, fn: Callable[[Connection], None]) -> None:
        def run() -> None:
            # The writer's held connection: the pool has no second one to give.
            held = self._group_writer.connections
            connection = held.connection()
            try:
                with connection.begin():
                    fn(connection)
            finally:
                held.release_unless_clean()

        await asyncio.get_running_loop().run_in_executor(self._writer, run)

    async def close(self) -> None:
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        self._group_writer.connections.close()
        self._held_reads.close()
        self.write_engine.dispose()
        self.read_engine.dispose()

"""`agentmail serve --workers N`: N gateway processes on the same listening sockets.

One gateway process uses one core. On PostgreSQL several can serve together,
exactly as replicas do (docs/deploy.md): events reach every worker's streams by
LISTEN/NOTIFY (core/store/replicas.py), and budgets, rate limits and decisions
live in rows and row locks, never in a process's memory. This supervisor — the
process systemd knows as MAINPID — prepares the database once (migrations, the
first admin), binds every listener (gateway/sockets.py) and starts N workers,
`agentmail serve` processes that inherit the sockets; the kernel hands each new
connection to whichever worker accepts it first.

* `READY=1` (sd_notify) once every worker has said it serves: a byte on a pipe
  it inherits, written after its HTTP, SMTP and IMAP servers all accept.
* SIGTERM or SIGINT: `STOPPING=1`; the supervisor closes its copies of the
  sockets and sends SIGTERM to every worker, which shuts down as one gateway
  does (docs/deploy.md, "Shutdown"): `/readyz` turns 503 on all of them at once.
  It exits 0 once all have, SIGKILLing any still running after the grace period.
* `/metrics` of any worker gives the group's figures: the workers write them to
  files in a directory of the supervisor's (core/metrics.py).
* A worker that dies (a crash, SIGKILL, the OOM killer) is started again on the
  same sockets, which never stopped listening: the others serve meanwhile. More
  than `MAX_RESTARTS` deaths within a minute stop the group with exit 1 (systemd's
  `Restart=` takes over). A worker that exits 0 was stopped on purpose: the
  group stops with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.multiprocess import mark_process_dead

from core.identity.accounts import ensure_admin
from core.identity.security import set_bcrypt_rounds
from core.settings import Settings
from core.store.engine import Store, database_url
from core.store.migrate import migrate
from gateway.notify import notify
from gateway.sockets import handed_down

log = logging.getLogger("agentmail")

MAX_RESTARTS = 5  # deaths within RESTART_WINDOW before the group gives up
RESTART_WINDOW = 60.0
RESTART_DELAY = 1.0
START_TIMEOUT = 120.0  # a worker's start-up: imports, database, listeners
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


async def prepare(settings: Settings) -> str | None:
    """Once for the group, before any worker starts: migrate the database and make
    sure an admin exists. Returns the admin password when it was generated here."""
    set_bcrypt_rounds(settings.bcrypt_rounds)
    store = Store(database_url(settings.database_url, settings.sqlite_path), connections=2)
    try:
        await migrate(store)
        return await ensure_admin(store, settings.admin_user, settings.admin_password)
    finally:
        await store.close()


def parse_worker(spec: str) -> tuple[str, int, str, int]:
    """A worker's `--worker` value: (its sockets, its readiness pipe, "index/count",
    the supervisor's pid)."""
    sockets, *named = spec.split(";")
    fields = dict(item.partition("=")[::2] for item in named)
    if set(fields) != {"ready", "worker", "supervisor"}:
        raise ValueError(f"not a worker's description: {spec!r}")
    return sockets, int(fields["ready"]), fields["worker"], int(fields["supervisor"])


def follow_supervisor(supervisor: int) -> None:
    """In a worker: be sent SIGTERM when the supervisor dies, however it dies (SIGKILL
    too), rather than live on, orphaned, on the ports (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != supervisor:  # it died before the line above
        raise SystemExit(1)


@dataclass
class _Worker:
    index: int
    process: asyncio.subprocess.Process
    ready: asyncio.Future[None] = field(repr=False)


class Supervisor:
    def __init__(
        self,
        count: int,
        sockets: Mapping[str, socket.socket],
        env: Mapping[str, str],
        grace_seconds: float,
    ) -> None:
        """`env`: the workers' environment (the supervisor's settings, flags included)."""
        self.count = count
        self.sockets = dict(sockets)
        self.metrics_dir = tempfile.mkdtemp(prefix="agentmail-metrics-")
        self.env = {k: v for k, v in env.items() if k != "NOTIFY_SOCKET"}  # one notifier
        self.env["PROMETHEUS_MULTIPROC_DIR"] = self.metrics_dir
        self.grace_seconds = grace_seconds
        self.workers: dict[int, _Worker] = {}
        self._deaths: list[float] = []

    async def _spawn(self, index: int) -> _Worker:
        loop = asyncio.get_running_loop()
        read_end, write_end = os.pipe()
        spec = (
            f"{handed_down(self.sockets)};ready={write_end};worker={index}/{self.count};"
            f"supervisor={os.getpid()}"
        )
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "gateway",
                "serve",
                "--worker",
                spec,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                pass_fds=[*(s.fileno() for s in self.sockets.values()), write_end],
            )
        finally:
            os.close(write_end)
        ready: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            loop.remove_reader(read_end)
            said = b""
            with contextlib.suppress(OSError):
                said = os.read(read_end, 1)
            os.close(read_end)
            if not ready.done():
                if said:
                    ready.set_result(None)
                else:  # the pipe closed without a word: the worker ended while starting
                    ready.set_exception(RuntimeError(f"worker {index} ended while starting"))

        loop.add_reader(read_end, readable)
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # read: no warning
        worker = _Worker(index, process, ready)
        self.workers[index] = worker
        return worker

    async def run(self, on_ready: Callable[[], None]) -> int:
        """Start the workers, serve until a signal, stop them; the exit status."""
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        status = 0
        try:
            for index in range(1, self.count + 1):
                await self._spawn(index)
            if not await self._all_ready(stopping):
                status = 1 if not stopping.is_set() else 0
                return status
            on_ready()
            notify(f"READY=1\nMAINPID={os.getpid()}\nSTATUS=serving with {self.count} workers")
            status = await self._watch(stopping)
            return status
        finally:
            notify("STOPPING=1")
            await self._stop_all()

    async def _all_ready(self, stopping: asyncio.Event) -> bool:
        readiness: asyncio.Future[list[None]] = asyncio.gather(
            *(w.ready for w in self.workers.values())
        )
        stop: asyncio.Future[object] = asyncio.ensure_future(stopping.wait())
        try:
            waits: set[asyncio.Future[Any]] = {readiness, stop}
            done, _ = await asyncio.wait(
                waits, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            stop.cancel()
        if readiness in done:
            failed = readiness.exception()
            if failed is None:
                return True
            log.error("%s", failed)
        else:
            readiness.cancel()
            if stop not in done:
                log.error("the workers did not all start within %.0f s", START_TIMEOUT)
        return False

    async def _watch(self, stopping: asyncio.Event) -> int:
        """Until a signal: start again each worker that dies; the exit status."""
        stop = asyncio.ensure_future(stopping.wait())
        try:
            while True:
                exits = {asyncio.ensure_future(w.process.wait()): w for w in self.workers.values()}
                done, _ = await asyncio.wait({stop, *exits}, return_when=asyncio.FIRST_COMPLETED)
                for future in exits:
                    if future not in done:
                        future.cancel()
                if stop in done:
                    return 0
                for future in done:
                    worker = exits[future]
                    code = worker.process.returncode
                    mark_process_dead(worker.process.pid, self.metrics_dir)  # type: ignore[no-untyped-call]
                    if code == 0:
                        log.warning("worker %d stopped: stopping the group", worker.index)
                        return 0
                    if not self._may_restart():
                        log.error("workers keep dying (%d in a minute): stopping", MAX_RESTARTS)
                        return 1
                    log.error("worker %d ended (status %s): starting it again", worker.index, code)
                    await asyncio.sleep(RESTART_DELAY)
                    await self._spawn(worker.index)
        finally:
            stop.cancel()

    def _may_restart(self) -> bool:
        now = time.monotonic()
        self._deaths = [t for t in self._deaths if now - t < RESTART_WINDOW] + [now]
        return len(self._deaths) <= MAX_RESTARTS

    async def _stop_all(self) -> None:
        for sock in self.sockets.values():  # the workers' copies close as they stop
            sock.close()
        running = [w.process for w in self.workers.values() if w.process.returncode is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        try:
            async with asyncio.timeout(self.grace_seconds + 10):
                await asyncio.gather(*(p.wait() for p in running))
        except TimeoutError:
            for process in running:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
            await asyncio.gather(*(p.wait() for p in running))
        shutil.rmtree(self.metrics_dir, ignore_errors=True)

"""What `imap_fetch_structure.py` drives: a raw IMAP connection that times whole
responses, the corpus on disk and in both servers, and the loads run beside a FETCH.

The client reads a response in large pieces and only looks for literals (`{n}`, whose
bytes it skips) and the tagged line: it parses nothing, so its own cost (a few ms for a
1,000-message FETCH) is small beside either server's, and the same for both.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from _children import ROOT, VENV_BIN
from _imap_clients import Server
from _wrk import ServerCpu, pg_backend_pids

from tests.support.dovecot import Dovecot
from tests.support.real_world_corpus import Generated

_LITERAL = re.compile(rb"~?\{(\d+)\+?\}\r\n")
CHUNK = 256 * 1024


class RawClient:
    """One logged-in IMAP connection; `timed` sends a command and reads its response."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.n = reader, writer, 0

    @classmethod
    async def open(cls, server: Server, mailbox: str = "INBOX") -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, limit=CHUNK)
        await reader.readline()  # the greeting
        client = cls(reader, writer)
        await client.timed(f'LOGIN "{server.user}" "{server.password}"')
        await client.timed(f"SELECT {mailbox}")
        return client

    async def timed(self, command: str) -> tuple[float, bytes]:
        """Seconds from sending `command` to its tagged reply, and the whole response;
        a reply other than OK raises."""
        self.n += 1
        tag = b"b%d" % self.n
        started = time.perf_counter()
        self.writer.write(tag + b" " + command.encode() + b"\r\n")
        data = bytearray()
        pos = 0  # where the next response line starts
        while True:
            chunk = await self.reader.read(CHUNK)
            if not chunk:
                raise ConnectionError(f"closed during {command!r}")
            data += chunk
            while True:
                end = data.find(b"\r\n", pos)
                if end == -1:
                    break
                literal = _LITERAL.search(data, pos, end + 2)
                if literal is not None and literal.end() == end + 2:
                    skip = literal.end() + int(literal.group(1))
                    if skip > len(data):
                        break  # the literal is not all here yet: read on
                    pos = skip  # the line goes on after the literal
                    continue
                if data.startswith(tag + b" ", pos):
                    seconds = time.perf_counter() - started
                    if not data.startswith(tag + b" OK", pos):
                        raise RuntimeError(f"{command!r}: {bytes(data[pos:end])!r}")
                    return seconds, bytes(data)
                pos = end + 2

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


def fetched(response: bytes) -> int:
    """How many `* n FETCH` lines a response holds (literals could hide none here)."""
    return response.count(b" FETCH (")


def write_corpus(messages: list[Generated], directory: Path) -> Path:
    directory.mkdir(parents=True)
    for number, item in enumerate(messages):
        (directory / f"{number:05d}.eml").write_bytes(item.raw)
    return directory


async def import_corpus(directory: Path, data_dir: Path, database_url: str) -> float:
    """`agentmail import` of the corpus into the running gateway's store (the import path:
    every message through the one write path); returns the seconds it took."""
    argv = [str(VENV_BIN / "agentmail"), "import", str(directory), "--data-dir", str(data_dir)]
    if database_url:
        argv += ["--database-url", database_url]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"agentmail import failed:\n{output.decode()[-3000:]}")
    return time.perf_counter() - started


def fill_dovecot(server: Dovecot, messages: list[Generated]) -> None:
    """The corpus into Dovecot's INBOX Maildir, the bytes the import stored (it keeps
    CRLF bytes as they are, checked at the end of the run)."""
    for number, item in enumerate(messages):
        server.place(f"{number:06d}.bench:2,", item.raw)


async def fetch_loop(server: Server, command: str, stop: asyncio.Event) -> int:
    """`command` again and again on its own connection until `stop`; how many ran."""
    client = await RawClient.open(server)
    runs = 0
    try:
        while not stop.is_set():
            await client.timed(command)
            runs += 1
    finally:
        await client.close()
    return runs


async def probe_loop(base_url: str, stop: asyncio.Event, every: float = 0.05) -> list[float]:
    """Seconds of each `GET /readyz` made every `every` seconds until `stop`."""
    seconds: list[float] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        while not stop.is_set():
            started = time.perf_counter()
            (await http.get("/readyz")).raise_for_status()
            seconds.append(time.perf_counter() - started)
            await asyncio.sleep(every)
    return seconds


async def during(
    loads: list[Callable[[asyncio.Event], Awaitable[object]]], measure: Awaitable[object]
) -> tuple[object, list[object]]:
    """`measure` while every load runs; the loads are stopped after it and their results
    returned beside its own."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(load(stop)) for load in loads]
    await asyncio.sleep(0.5)  # the loads under way before the measure starts
    try:
        result = await measure
    finally:
        stop.set()
    return result, list(await asyncio.gather(*tasks))


@dataclass(frozen=True, slots=True)
class Timed:
    seconds: float
    cpu: float  # of the server, over the same span


def _tree_run_time(pid: int) -> float | None:
    """Seconds on a CPU of the live threads of a process and its descendants, to the
    nanosecond (`/proc/<pid>/task/<tid>/schedstat`): /proc's `stat` counts 10 ms ticks,
    as long as a whole listing."""
    total, pending, seen = 0, [pid], False
    while pending:
        current = pending.pop()
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                total += int((task / "schedstat").read_text().split()[0])
                pending.extend(int(c) for c in (task / "children").read_text().split())
            seen = True
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9 if seen else None


class RunTime:
    """`ServerCpu`'s processes (the server's tree; a gateway's PostgreSQL backends too),
    their CPU read to the nanosecond: for spans shorter than a tick. Processes that ended
    meanwhile are not counted (the connections stay open while a FETCH is timed)."""

    def __init__(self, cpu: ServerCpu) -> None:
        self.cpu = cpu

    async def sample(self) -> dict[int, float]:
        pids = [self.cpu.pid]
        if self.cpu.database_url:
            pids += await pg_backend_pids(self.cpu.database_url)
        return {pid: _tree_run_time(pid) or 0.0 for pid in pids}

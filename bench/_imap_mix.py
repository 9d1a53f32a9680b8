"""The clients `imap_load.py` runs: plain IMAP connections, each a closed loop of commands
drawn from one mix (LIST, STATUS, FETCH, SEARCH, NOOP), every command timed.

The client is a few lines of asyncio, not aioimaplib: it reads lines and literals and
parses nothing but the tagged reply, so it costs little beside either server, and the
same code with the same seeded draws runs against the gateway and against Dovecot.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

TIMEOUT = 60.0
_LITERAL = re.compile(rb"\{(\d+)\}\r\n$")

# What one command of the mix is: its name in the report, its weight, and its line given a
# random source and the folder's size. The weights are an outside stress run's
# proportions: mostly cheap commands, as idle clients polling send.
Make = Callable[[random.Random, int], bytes]
MIX: list[tuple[str, int, Make]] = [
    ("NOOP", 30, lambda r, n: b"NOOP"),
    ("LIST", 10, lambda r, n: b'LIST "" "*"'),
    ("STATUS", 15, lambda r, n: b"STATUS INBOX (MESSAGES UNSEEN UIDNEXT)"),
    ("FETCH-ENVELOPE", 15, lambda r, n: _range_fetch(r, n)),
    ("FETCH-BODY", 15, lambda r, n: b"UID FETCH %d (BODY.PEEK[])" % r.randint(1, n)),
    ("SEARCH", 15, lambda r, n: b"UID SEARCH UNSEEN"),
]
NAMES = [name for name, _, _ in MIX]
LINES = {  # what each name sends, for the report
    "NOOP": "NOOP",
    "LIST": 'LIST "" "*"',
    "STATUS": "STATUS INBOX (MESSAGES UNSEEN UIDNEXT)",
    "FETCH-ENVELOPE": "UID FETCH a:a+19 (FLAGS ENVELOPE)",
    "FETCH-BODY": "UID FETCH n (BODY.PEEK[])",
    "SEARCH": "UID SEARCH UNSEEN",
}


def _range_fetch(rng: random.Random, count: int) -> bytes:
    first = rng.randint(1, max(1, count - 19))
    return b"UID FETCH %d:%d (FLAGS ENVELOPE)" % (first, first + 19)


@dataclass
class Timings:
    """Seconds per command, by the command's name in the mix."""

    by_name: dict[str, list[float]] = field(default_factory=lambda: {n: [] for n in NAMES})

    def add(self, other: Timings) -> None:
        for name, times in other.by_name.items():
            self.by_name[name].extend(times)

    @property
    def count(self) -> int:
        return sum(len(times) for times in self.by_name.values())


class Connection:
    """One plain IMAP connection that sends a command and reads until its tagged reply."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._tag = 0

    @classmethod
    async def login(cls, port: int, user: str, password: str) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        connection = cls(reader, writer)
        await asyncio.wait_for(reader.readline(), TIMEOUT)  # the greeting
        await connection.command(b'LOGIN %s "%s"' % (user.encode(), password.encode()))
        return connection

    async def command(self, line: bytes) -> int:
        """Send one command; returns the octets of its reply. A reply not OK raises."""
        self._tag += 1
        tag = b"c%d" % self._tag
        self.writer.write(tag + b" " + line + b"\r\n")
        received = 0
        while True:
            reply = await asyncio.wait_for(self.reader.readline(), TIMEOUT)
            if not reply:
                raise ConnectionError(f"closed during {line!r}")
            received += len(reply)
            literal = _LITERAL.search(reply)
            if literal is not None:
                received += len(await self.reader.readexactly(int(literal.group(1))))
                continue
            if reply.startswith(tag + b" "):
                if not reply.startswith(tag + b" OK"):
                    raise RuntimeError(f"{line!r}: {reply!r}")
                return received

    async def close(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, asyncio.IncompleteReadError):
            await self.command(b"LOGOUT")
        self.writer.close()


async def run_clients(
    port: int,
    user: str,
    password: str,
    *,
    clients: int,
    seconds: float,
    messages: int,
    seed: int,
    only: frozenset[str] = frozenset(),
) -> Timings:
    """`clients` connections, each LOGIN + SELECT INBOX (untimed), then commands drawn
    from the mix (or from its commands named in `only`) back to back for `seconds`;
    every command's latency."""
    connections = await asyncio.gather(
        *(Connection.login(port, user, password) for _ in range(clients))
    )
    for connection in connections:
        await connection.command(b"SELECT INBOX")
    kept = [(name, weight) for name, weight, _ in MIX if not only or name in only]
    names, weights = [name for name, _ in kept], [weight for _, weight in kept]
    makers = {name: make for name, _, make in MIX}
    deadline = time.perf_counter() + seconds

    async def loop(connection: Connection, number: int) -> Timings:
        rng = random.Random(seed * 1000 + number)
        timings = Timings()
        while time.perf_counter() < deadline:
            name = rng.choices(names, weights)[0]
            line = makers[name](rng, messages)
            started = time.perf_counter()
            await connection.command(line)
            timings.by_name[name].append(time.perf_counter() - started)
        return timings

    try:
        results = await asyncio.gather(*(loop(c, n) for n, c in enumerate(connections)))
    finally:
        await asyncio.gather(*(c.close() for c in connections))
    total = Timings()
    for timings in results:
        total.add(timings)
    return total

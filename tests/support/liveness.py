"""Is the whole gateway still serving? HTTP, SMTP and IMAP, the loop watchdog, memory.

A fuzzer calls `assert_alive(gateway, since)` after every input it sends: one
input that hangs the event loop, or makes the process grow without bound, fails
the test at that input instead of at some later, unrelated timeout. Every wait has
a generous margin (`MARGIN`, tens of seconds: no load breaks it); whether the
loop stalled is the gateway's own account (`agentmail_loop_stalls_total` on
`/metrics`, gateway/loop_watchdog.py), never a time measured here. The gateway
runs in this process (on the test's loop or in a thread,
tests/support/threaded.py), so its memory is this process's resident set.

A gateway on the test's own loop that hangs hangs the test too: a fuzzer whose
inputs could hang the loop runs its gateway in a thread, so that this helper's
reads time out and fail the test.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from gateway.server import Gateway

__all__ = ["MARGIN", "RSS_GROWTH_BYTES", "Baseline", "assert_alive", "baseline"]

MARGIN = 30.0  # seconds for each protocol's answer
RSS_GROWTH_BYTES = 300 * 1024 * 1024  # over the baseline: far above any legitimate input


@dataclass(frozen=True, slots=True)
class Baseline:
    stalls: float
    rss_bytes: int


def resident_bytes() -> int:
    """This process's resident set (VmRSS in /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def _client(gateway: Gateway) -> httpx.AsyncClient:
    """Plain HTTP on loopback: no TLS context (building one is slow)."""
    return httpx.AsyncClient(base_url=gateway.http_url, timeout=MARGIN, verify=False)


async def _stalls(client: httpx.AsyncClient) -> float:
    response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    for family in text_string_to_metric_families(response.text):
        if family.name == "agentmail_loop_stalls":
            return sum(s.value for s in family.samples if s.name.endswith("_total"))
    raise AssertionError("/metrics has no agentmail_loop_stalls_total")


async def baseline(gateway: Gateway) -> Baseline:
    """What `assert_alive` compares with: the stalls counted and the memory now."""
    async with _client(gateway) as client:
        return Baseline(await _stalls(client), resident_bytes())


async def _exchange(port: int, first: bytes, command: bytes, done: bytes) -> list[bytes]:
    """Connect, read the greeting (its first line starts with `first`), send `command`,
    read up to the line that starts with `done`."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), MARGIN)
    try:
        greeting = await asyncio.wait_for(reader.readline(), MARGIN)
        assert greeting.startswith(first), (port, greeting)
        while greeting[3:4] == b"-":  # a multi-line SMTP greeting
            greeting = await asyncio.wait_for(reader.readline(), MARGIN)
        writer.write(command)
        await writer.drain()
        lines: list[bytes] = []
        while not lines or not lines[-1].startswith(done):
            line = await asyncio.wait_for(reader.readline(), MARGIN)
            assert line, (port, command, lines)
            lines.append(line)
        return lines
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


async def assert_alive(
    gateway: Gateway, since: Baseline, *, rss_growth: int = RSS_GROWTH_BYTES
) -> None:
    """HTTP `/healthz` answers 200, SMTP (and the MX listener, when on) greets and
    answers EHLO, IMAP greets and answers NOOP, all within `MARGIN` each; the watchdog
    counted no stall since `since`; the resident set grew by at most `rss_growth`."""
    async with _client(gateway) as client:
        health = await client.get("/healthz")
        assert health.status_code == 200, health.text
        await _exchange(gateway.smtp_port, b"220", b"EHLO liveness.test\r\n", b"250 ")
        await _exchange(gateway.imap_port, b"* OK", b"L1 NOOP\r\n", b"L1 OK")
        if gateway.mx_port is not None:  # the MX listener, when it is on
            await _exchange(gateway.mx_port, b"220", b"EHLO liveness.test\r\n", b"250 ")
        stalls = await _stalls(client)
    assert stalls == since.stalls, f"the event loop stalled {stalls - since.stalls:g} time(s)"
    grown = resident_bytes() - since.rss_bytes
    assert grown <= rss_growth, f"resident set grew by {grown / 2**20:.0f} MiB"

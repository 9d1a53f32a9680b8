"""The client side of the benchmark: the requests, the senders, the SSE readers, the records.

The same mail bodies go to both servers. The senders run a closed loop and time
every POST; the SSE readers note the moment each `new_mail` arrives; `Load`
holds what one server got in a round (or in all of them) together with the CPU
the client, the server and the rest of the machine used meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from _children import Child, machine_busy_cpu

API = "/api/v1"


# ---------------------------------------------------------------- small helpers


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of unsorted values; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def body_text(size: int) -> str:
    words = (
        "please look at the failing health check in the staging cluster and tell me "
        "what you find before you change anything "
    )
    return (words * (size // len(words) + 1))[:size]


# ---------------------------------------------------------------- SSE readers


@dataclass
class Deliveries:
    """Every `new_mail` seen on any stream: mail_id → [(agent index, perf time, wall time)]."""

    seen: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)
    server_stamp: dict[str, float] = field(default_factory=dict)
    count: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    # The mails wrk sent (bench/_rest_wrk.py), apart: subject → [agent index, ...].
    wrk: dict[str, list[int]] = field(default_factory=dict)

    def add(self, agent: int, payload: dict[str, Any], perf: float, wall: float) -> None:
        subject = str(payload.get("subject", ""))
        if subject.startswith("wrk "):
            self.wrk.setdefault(subject, []).append(agent)
            self.changed.set()
            return
        mail_id = str(payload.get("mail_id"))
        self.seen.setdefault(mail_id, []).append((agent, perf, wall))
        with contextlib.suppress(KeyError, TypeError, ValueError):
            self.server_stamp[mail_id] = datetime.fromisoformat(payload["created_at"]).timestamp()
        self.count += 1
        self.changed.set()

    def wrk_arrivals(self) -> dict[str, list[int]]:
        return self.wrk

    async def wait_for(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.count < count:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return True


async def read_stream(
    client: httpx.AsyncClient,
    agent: int,
    key: str,
    deliveries: Deliveries,
    connected: asyncio.Event,
) -> None:
    """One agent's SSE stream: notes each `new_mail` the moment its blank line arrives."""
    async with client.stream(
        "GET",
        f"{API}/events/stream",
        headers={"Authorization": f"Bearer {key}"},
        timeout=httpx.Timeout(15.0, read=None),
    ) as response:
        if response.status_code != 200:
            raise RuntimeError(f"SSE for agent {agent}: {response.status_code}")
        event, data = "message", []
        async for line in response.aiter_lines():
            if not line:
                if event == "new_mail" and data:
                    perf, wall = time.perf_counter(), time.time()
                    deliveries.add(agent, json.loads("\n".join(data)), perf, wall)
                event, data = "message", []
            elif line.startswith(":"):
                if line[1:].strip() == "connected":
                    connected.set()
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))


# ---------------------------------------------------------------- load


@dataclass
class Sent:
    index: int  # the mail's number: its recipient is agent (index % agents)
    start_perf: float
    start_wall: float
    end_perf: float
    status: int
    result: dict[str, Any]

    @property
    def mail_id(self) -> str:
        return str(self.result.get("mail_id"))


@dataclass
class Load:
    """Timed sending against one server: what the senders saw, and the CPU used meanwhile."""

    sent: list[Sent] = field(default_factory=list)
    wall: float = 0.0  # first POST start → last POST response (summed over rounds)
    cpu_interval: float = 0.0  # the seconds the CPU figures cover (for the gateway: → delivery)
    client_cpu: float = 0.0
    server_cpu: float | None = 0.0
    machine_cpu: float | None = 0.0  # every process on the machine, ours included
    loop_lag: list[float] = field(default_factory=list)
    round_rates: list[float] = field(default_factory=list)
    idle_rtt: list[float] = field(default_factory=list)

    def add(self, other: Load) -> None:
        """Fold one round into the total."""
        self.sent += other.sent
        self.wall += other.wall
        self.cpu_interval += other.cpu_interval
        self.client_cpu += other.client_cpu
        self.server_cpu = _plus(self.server_cpu, other.server_cpu)
        self.machine_cpu = _plus(self.machine_cpu, other.machine_cpu)
        self.loop_lag += other.loop_lag
        self.round_rates.append(other.rate)

    @property
    def ok(self) -> list[Sent]:
        return [s for s in self.sent if s.status == 200]

    @property
    def rate(self) -> float:
        return len(self.sent) / self.wall if self.wall > 0 else math.nan

    def post_latency(self, p: float) -> float:
        return percentile([s.end_perf - s.start_perf for s in self.sent], p)

    def share(self, cpu: float | None) -> float | None:
        """CPU seconds as a fraction of one core over the measured interval."""
        if cpu is None or self.cpu_interval <= 0:
            return None
        return cpu / self.cpu_interval

    def others_cpu(self) -> float | None:
        """CPU used meanwhile by processes other than the client and the server."""
        if self.machine_cpu is None or self.server_cpu is None:
            return None
        return max(0.0, self.machine_cpu - self.client_cpu - self.server_cpu)


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


async def loop_lag_monitor(lags: list[float], stop: asyncio.Event, tick: float = 0.005) -> None:
    """How late this (client) event loop wakes a 5 ms sleeper: a busy client shows here."""
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(tick)
        lags.append(time.perf_counter() - before - tick)


class Senders:
    """The HTTP clients of the senders: one per sender (default), or one shared pool.

    httpx's connection pool costs CPU per request that grows with the number of
    connections it holds, so 20 workers on one shared client capped the
    hello-world baseline well below its rate. A client per sender keeps the client
    cheaper, so the baseline measures the server more.
    """

    def __init__(self, base_url: str, count: int, token: str, *, shared: bool) -> None:
        def client(connections: int) -> httpx.AsyncClient:
            limits = httpx.Limits(
                max_connections=connections, max_keepalive_connections=connections
            )
            return httpx.AsyncClient(
                base_url=base_url,
                headers={"Authorization": f"Bearer {token}"},
                limits=limits,
                timeout=30.0,
            )

        self.count = count
        self.clients = [client(count)] if shared else [client(1) for _ in range(count)]

    def __getitem__(self, worker: int) -> httpx.AsyncClient:
        return self.clients[worker % len(self.clients)]

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


async def send_all(senders: Senders, path: str, items: list[tuple[int, bytes]]) -> list[Sent]:
    """The senders share the items in order; each POST is timed from just before it."""
    results: list[Sent] = []
    queue = iter(items)
    headers = {"content-type": "application/json"}

    async def worker(client: httpx.AsyncClient) -> None:
        for index, body in queue:
            start_perf, start_wall = time.perf_counter(), time.time()
            response = await client.post(path, content=body, headers=headers)
            end_perf = time.perf_counter()
            try:
                result = response.json()
            except ValueError:
                result = {"text": response.text[:200]}
            results.append(
                Sent(index, start_perf, start_wall, end_perf, response.status_code, result)
            )

    await asyncio.gather(*(worker(senders[k]) for k in range(senders.count)))
    return results


async def idle_round_trips(client: httpx.AsyncClient, path: str, count: int = 30) -> list[float]:
    """Sequential GETs on an idle server: the fixed cost of one request, without load."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = await client.get(path)
        times.append(time.perf_counter() - start)
        response.raise_for_status()
    return times


async def timed_load(
    senders: Senders,
    path: str,
    items: list[tuple[int, bytes]],
    server: Child,
    settle: Callable[[list[Sent]], Awaitable[None]] | None = None,
) -> Load:
    """Send `items`, then (for the gateway) wait until they are delivered; measure it all."""
    stop = asyncio.Event()
    lags: list[float] = []
    monitor = asyncio.create_task(loop_lag_monitor(lags, stop))
    cpu_client, cpu_server, cpu_machine = time.process_time(), server.cpu(), machine_busy_cpu()
    first = time.perf_counter()
    sent = await send_all(senders, path, items)
    last = max((s.end_perf for s in sent), default=first)
    if settle is not None:
        await settle(sent)
    interval = time.perf_counter() - first
    client_cpu = time.process_time() - cpu_client
    server_after, machine_after = server.cpu(), machine_busy_cpu()
    stop.set()
    await monitor
    return Load(
        sent=sent,
        wall=last - first,
        cpu_interval=interval,
        client_cpu=client_cpu,
        server_cpu=None
        if cpu_server is None or server_after is None
        else server_after - cpu_server,
        machine_cpu=None
        if cpu_machine is None or machine_after is None
        else machine_after - cpu_machine,
        loop_lag=lags,
    )


def agent_name(i: int) -> str:
    return f"agent{i:02d}"


def mail_items(first: int, count: int, agents: int, size: int, tag: str) -> list[tuple[int, bytes]]:
    """Mail number i goes to agent i % agents; the hello-world gets the very same bytes."""
    text = body_text(size)
    return [
        (
            i,
            json.dumps(
                {
                    "to": f"{agent_name(i % agents)}@ws",
                    "subject": f"{tag} mail {i:05d}",
                    "body": text,
                }
            ).encode(),
        )
        for i in range(first, first + count)
    ]

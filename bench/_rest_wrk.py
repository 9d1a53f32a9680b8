"""`rest_loop.py`'s throughput phase: wrk against the gateway, the hello-world and agent-inbox.

The same 20 wrk connections (`--senders`) post ~500-byte JSON mails, in rounds
that alternate between the servers so each sees the same machine:

- **gateway**: `POST /api/v1/me/mail/send` as the human, to `agentNN@ws`, while
  the 50 agents' SSE streams stay open, so the fan-out is paid for; afterwards
  every wrk mail must arrive exactly once on its own agent's stream.
- **hello-world**: `POST /echo` with the same bodies.
- **agent-inbox 0.34.0** (bench/_peers.py): `POST /actors/bench_sender/outbox`,
  an ActivityStreams Note to one of 50 actors, in its own process and venv. It
  has no push stream, so it serves no SSE clients.

Each prints requests/s, latency p50/p99 (wrk's), CPU ms per request (server
process tree, plus PostgreSQL backends for the gateway on PostgreSQL) and the
machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _children import Child, free_port, spawn
from _load import API, Deliveries, body_text
from _peers import agent_inbox_python
from _report import console
from _wrk import ServerCpu, WrkRun, lua_script, run_wrk, summed

PEER_SENDER = "bench_sender"  # agent-inbox names: letters, digits, underscores


@dataclass
class WrkTarget:
    name: str
    url: str
    script: Callable[[int], Path]  # the Lua script of a round: subjects unique across rounds
    cpu: ServerCpu
    runs: list[WrkRun] = field(default_factory=list)

    def total(self) -> WrkRun:
        return summed(self.runs)


def _mail_format(size: int, round_number: int) -> str:
    subject = f"wrk r{round_number}.%d %d to %d"
    return '{"to":"agent%02d@ws","subject":"' + subject + '","body":"' + body_text(size) + '"}'


def _note_format(size: int, round_number: int) -> str:
    subject = f"wrk r{round_number}.%d %d to %d"
    note = '{"type":"Note","to":["agent%02d"],"summary":"' + subject + '","content":"'
    return note + body_text(size) + '"}'


async def start_agent_inbox(workdir: Path, agents: int) -> Child | None:
    """agent-inbox in its own venv on a fresh SQLite file, with the 50 actors and the sender."""
    python = agent_inbox_python()
    if python is None:
        return None
    port = free_port()
    env = {
        **os.environ,
        "AGENT_INBOX_HOST": "127.0.0.1",
        "AGENT_INBOX_PORT": str(port),
        "AGENT_INBOX_DB": str(workdir / "agent-inbox.db"),
        "AGENT_INBOX_AUTH_MODE": "off",
        "AGENT_INBOX_LOG_LEVEL": "WARNING",
        "AGENT_INBOX_PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    argv = [python, "-c", "from agent_inbox.serve import main; main()"]
    child = spawn("agent-inbox", argv, env, workdir / "agent-inbox.log", port)
    await child.wait_healthy("/health")
    async with httpx.AsyncClient(base_url=child.base_url, timeout=30) as http:
        for name in [PEER_SENDER, *(f"agent{i:02d}" for i in range(agents))]:
            joined = await http.post("/actors", json={"preferredUsername": name})
            if joined.status_code != 201:
                raise RuntimeError(f"agent-inbox join {name}: {joined.status_code} {joined.text}")
        probe = await http.post(
            f"/actors/{PEER_SENDER}/outbox",
            content=(_note_format(10, 0) % (0, 0, 0, 0)).encode(),
            headers={"X-Agent-Name": PEER_SENDER, "Content-Type": "application/json"},
        )
        if probe.status_code >= 300:
            raise RuntimeError(f"agent-inbox outbox: {probe.status_code} {probe.text[:300]}")
    return child


def targets(
    args: argparse.Namespace,
    workdir: Path,
    gateway: Child,
    user_key: str,
    database_url: str,
    hello: Child,
    peer: Child | None,
) -> list[WrkTarget]:
    def script(
        name: str, path: str, headers: dict[str, str], body: Callable[[int, int], str]
    ) -> Callable[[int], Path]:
        def for_round(number: int) -> Path:
            file = workdir / f"{name}-{number}.lua"
            file.write_text(lua_script(path, headers, body(args.body_bytes, number), args.agents))
            return file

        return for_round

    send = f"{API}/me/mail/send"
    found = [
        WrkTarget(
            "gateway",
            gateway.base_url + send,
            script("gateway", send, {"Authorization": f"Bearer {user_key}"}, _mail_format),
            ServerCpu(gateway, database_url),
        ),
        WrkTarget(
            "hello-world",
            hello.base_url + "/echo",
            script("hello", "/echo", {}, _mail_format),
            ServerCpu(hello),
        ),
    ]
    if peer is not None:
        outbox = f"/actors/{PEER_SENDER}/outbox"
        headers = {"X-Agent-Name": PEER_SENDER, "Accept": "application/activity+json"}
        found.append(
            WrkTarget(
                "agent-inbox 0.34.0",
                peer.base_url + outbox,
                script("agent-inbox", outbox, headers, _note_format),
                ServerCpu(peer),
            )
        )
    return found


async def wrk_phase(args: argparse.Namespace, found: list[WrkTarget]) -> None:
    for number in range(1, args.wrk_rounds + 1):
        line = []
        for target in found:
            run = await run_wrk(
                target.url, target.script(number), target.cpu,
                seconds=args.wrk_seconds, connections=args.senders,
            )  # fmt: skip
            target.runs.append(run)
            line.append(f"{target.name} {run.rate:.0f}/s")
        console.print(f"wrk round {number}/{args.wrk_rounds}: " + ", ".join(line))


async def check_wrk_deliveries(
    deliveries: Deliveries, gateway_requests: int, agents: int, timeout: float
) -> list[str]:
    """Every gateway mail sent by wrk must arrive exactly once, on its own agent's stream.

    wrk counts the requests it completed; the ones in flight when it stopped may have
    been stored too, so at least that many must arrive, each subject once."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if len(deliveries.wrk_arrivals()) >= gateway_requests:
            break
        with contextlib.suppress(TimeoutError):
            deliveries.changed.clear()
            await asyncio.wait_for(deliveries.changed.wait(), 1.0)
    await asyncio.sleep(0.5)  # a late duplicate would show up here
    arrivals = deliveries.wrk_arrivals()
    problems = []
    if len(arrivals) < gateway_requests:
        problems.append(f"wrk: {gateway_requests} sends answered, {len(arrivals)} arrived on SSE")
    for subject, seen in arrivals.items():
        if len(seen) != 1:
            problems.append(f"wrk mail {subject!r} arrived {len(seen)} times")
        want = int(subject.rsplit(" ", 1)[1])
        if any(agent != want % agents for agent in seen):
            problems.append(f"wrk mail {subject!r} arrived on the wrong stream")
    return problems[:12]


def print_wrk(found: list[WrkTarget]) -> float | None:
    """The throughput table: one row per server, CPU ms per request first; returns
    gateway / hello-world requests/s, which the summary's rate goal reads."""
    console.print(
        "\n[bold]wrk[/] (C load generator, closed loop; CPU from /proc: the server's process"
        " tree, plus its PostgreSQL backends)"
    )
    header = f"{'server':<22}{'CPU ms/req':>11}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
    console.print(f"{header}{'errors':>8}  load average (per round)")
    hello_rate = 0.0
    for target in found:
        total = target.total()
        if target.name == "hello-world":
            hello_rate = total.rate
        console.print(
            f"{target.name:<22}{total.cpu_ms_per_request:>11.2f}{total.rate:>9.0f}"
            f"{total.p50_ms:>9.1f}{total.p99_ms:>9.1f}{total.errors:>8}  {total.load_average}"
        )
    gateway = found[0].total()
    ratio = gateway.rate / hello_rate if hello_rate else None
    if ratio is not None:
        console.print(f"gateway / hello-world: [bold]{ratio:.1%}[/] (goal >= 25%)")
    for target in found[2:]:
        peer = target.total()
        if peer.rate:
            times = gateway.rate / peer.rate
            console.print(
                f"gateway / {target.name}: [bold]{times:.2f}x[/] (goal >= 1.5x); CPU per mail"
                f" {gateway.cpu_ms_per_request:.2f} vs {peer.cpu_ms_per_request:.2f} ms"
            )
    return ratio

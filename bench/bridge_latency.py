"""Bridge latency on the real pi: how long a mail waits before pi asks the model, and how
long pi waits after the human's decision; the stub platform beside it as the baseline.

    scripts/offline .venv/bin/python bench/bridge_latency.py [--rounds 10] [--pause 3]

Each platform gets a gateway (SQLite), the fake model (tests/support/fake_model) and
its bridge as a child process (`agentmail bridge pi`, or the stub), all on loopback.
A round: the human mails a task to a new conversation (REST); the platform asks
permission for `touch round-N.txt`; the human approves (REST); the answer comes
back. Measured, from the REST call's 200 (the mail is committed):

* mail → prompt: until the fake model receives the turn's first request (the stub:
  until its worker, having read the mail, writes its start mark);
* decision → resume: until the fake model receives the turn's next request;
* decision → effect: until `round-N.txt` exists in the workspace.

pi runs twice: with the spare pi started ahead (the default) and without
(AGENTMAIL_PI_SPARE=0: every turn starts pi). `--pause` seconds between rounds let
the next spare finish starting, as between mails a person writes. CPU per round is
the bridge's process tree (the bridge, pi and everything they started and reaped),
from /proc. The machine's load is printed beside the figures: on a shared machine
the wall-clock numbers move with it, the CPU ones much less.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from _load import percentile

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import Exchange, Reply, call, say
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.mailbox import Mailbox, mailbox
from tests.support.pi_world import PiWorld, pi_world


@dataclass
class Figures:
    name: str
    prompt: list[float] = field(default_factory=list)
    resume: list[float] = field(default_factory=list)
    effect: list[float] = field(default_factory=list)
    cpu_per_round: float = float("nan")


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a process, the children it reaped, and its live descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    total, pending, first = 0, [pid], True
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            reaped = int(fields[13]) + int(fields[14]) if first else 0  # cutime + cstime
            total += int(fields[11]) + int(fields[12]) + reaped
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            pass
        first = False
    return total / tick


def _there(path: Path) -> bool:
    return path.exists()


async def _exists(path: Path) -> float:
    while not _there(path):
        await asyncio.sleep(0.001)
    return time.monotonic()


async def _first(log: list[Exchange], accept: Callable[[Exchange], bool]) -> float:
    while not (found := [e.started for e in log if accept(e)]):
        await asyncio.sleep(0.001)
    return found[0]


def _script(exchange: Exchange) -> Reply:
    if exchange.step == 0:
        subject = exchange.task.split('"')[1]  # the notification quotes the subject
        return call("bash", command=f"touch {subject}.txt")
    return say("done")


async def pi_rounds(tmp: Path, rounds: int, pause: float, spare: bool) -> Figures:
    figures = Figures("pi, spare started ahead" if spare else "pi, started per turn")
    async with pi_world(tmp, _script, AGENTMAIL_PI_SPARE="1" if spare else "0") as world:
        await asyncio.sleep(pause)  # the first spare starts with the bridge
        assert world.bridge.process is not None
        cpu = _tree_cpu(world.bridge.process.pid)
        for n in range(rounds):
            await _pi_round(world, f"round-{n}", figures)
            await asyncio.sleep(pause)
        figures.cpu_per_round = (_tree_cpu(world.bridge.process.pid) - cpu) / rounds
    return figures


async def _pi_round(world: PiWorld, subject: str, figures: Figures) -> None:
    log = world.model.log
    sent = await world.task(subject)
    sent_at = time.monotonic()
    asked_at = await _first(log, lambda e: f'"{subject}"' in e.task and e.step == 0)
    figures.prompt.append(asked_at - sent_at)
    asked = await world.mail.reply(sent["session_id"], "permission_request")
    await world.decide(asked["mail_id"], "approve")
    decided_at = time.monotonic()
    effect = asyncio.create_task(_exists(world.workspace / f"{subject}.txt"))
    resumed_at = await _first(log, lambda e: f'"{subject}"' in e.task and e.step == 1)
    figures.resume.append(resumed_at - decided_at)
    figures.effect.append(await effect - decided_at)
    await world.mail.reply(sent["session_id"], "final_summary")


@asynccontextmanager
async def _stub_world(tmp: Path) -> AsyncIterator[tuple[Api, Mailbox, BridgeProcess, Path]]:
    async with running_gateway(f"sqlite:///{tmp / 'agentmail.db'}", tmp / "gateway") as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            workspace = tmp / "ws"
            workspace.mkdir()
            bridge = BridgeProcess(api.base_url, await api.agent_key(), tmp / "data", workspace)
            await bridge.start()
            try:
                async with mailbox(human) as box:
                    yield api, box, bridge, workspace
            finally:
                await bridge.stop()
        finally:
            await api.close()


async def stub_rounds(tmp: Path, rounds: int, pause: float) -> Figures:
    figures = Figures("stub platform (baseline)")
    async with _stub_world(tmp) as (_api, box, bridge, workspace):
        assert bridge.process is not None
        cpu = _tree_cpu(bridge.process.pid)
        for n in range(rounds):
            subject = f"round-{n}"
            steps = [
                {"do": "mark", "file": f"{subject}.start"},
                {"do": "ask", "action": f"touch {subject}.txt"},
                {"do": "run", "command": f"touch {subject}.txt"},
                {"do": "reply", "body": "done"},
            ]
            body = {
                "to": "builder@root.new",
                "subject": subject,
                "body": json.dumps({"steps": steps}),
            }
            sent = ok(await box.human.post(HUMAN_SEND, json=body))
            sent_at = time.monotonic()
            figures.prompt.append(await _exists(workspace / f"{subject}.start") - sent_at)
            asked = await box.reply(sent["session_id"], "permission_request")
            decide = {"mail_id": asked["mail_id"], "decision": "approve"}
            ok(await box.human.post("/api/v1/me/permission/decide", json=decide))
            decided_at = time.monotonic()
            figures.effect.append(await _exists(workspace / f"{subject}.txt") - decided_at)
            await box.reply(sent["session_id"], "final_summary")
            await asyncio.sleep(pause)
        figures.cpu_per_round = (_tree_cpu(bridge.process.pid) - cpu) / rounds
    return figures


def _ms(values: list[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:9.0f}" if values else f"{'—':>9}"


def report(results: list[Figures], rounds: int) -> None:
    print(f"\nbridge latency, {rounds} rounds each; load average {_load()}")
    heads = ["mail → prompt", "decision → resume", "decision → effect"]
    print(f"{'':28}" + "".join(f"{head:>18}" for head in heads) + f"{'CPU/round':>11}")
    print(f"{'':28}" + f"{'p50 ms':>9}{'p99 ms':>9}" * 3 + f"{'ms':>11}")
    for f in results:
        cells = [_ms(values, p) for values in (f.prompt, f.resume, f.effect) for p in (50, 99)]
        print(f"{f.name:28}" + "".join(cells) + f"{f.cpu_per_round * 1000:11.0f}")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def main(args: argparse.Namespace) -> None:
    results = []
    with tempfile.TemporaryDirectory(prefix="bridge-latency-") as tmp:
        print(f"load average at start: {_load()}")
        for name in ("stub", "pi-spare", "pi"):
            (Path(tmp) / name).mkdir()
        results.append(await stub_rounds(Path(tmp) / "stub", args.rounds, args.pause))
        results.append(await pi_rounds(Path(tmp) / "pi-spare", args.rounds, args.pause, True))
        if not args.spare_only:
            results.append(await pi_rounds(Path(tmp) / "pi", args.rounds, args.pause, False))
    report(results, args.rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds per platform (10)")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between rounds (3)")
    parser.add_argument("--spare-only", action="store_true", help="leave out pi without a spare")
    asyncio.run(main(parser.parse_args()))

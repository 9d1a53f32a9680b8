"""Gateway and bridge restarts, in both orders, with a mail and a decision sent while
each is down: the stub platform acts on every one exactly once (docs/bridges.md,
"What survives a restart").

"The gateway is down" for the bridge while the humans go on (tests/support/gateways.py):
it runs on another HTTP port of the same database for a while, then comes back on the
bridge's port. SQLite only: what is tested is the stream and
the bridge's start, which the event-position test of test_bridge_client_events.py
runs on both databases.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.gateway import PASSWORD, Api
from tests.support.gateways import Gateways
from tests.support.http import HUMAN_SEND, ok
from tests.support.smtp import D, reply_by_mail, send

UNREACHABLE = "is not reachable"


async def _task(human: httpx.AsyncClient, name: str, steps: list[dict[str, Any]]) -> str:
    body = {"to": "builder@root.new", "subject": name, "body": json.dumps({"steps": steps})}
    sent: str = ok(await human.post(HUMAN_SEND, json=body))["session_id"]
    return sent


def _asking(name: str, *between: dict[str, Any]) -> list[dict[str, Any]]:
    """Ask to run `true NAME`, (then `between`), run it, reply NAME."""
    command = f"true {name}"
    return [
        {"do": "ask", "action": command},
        *between,
        {"do": "run", "command": command},
        {"do": "reply", "body": name},
    ]


def _running(name: str, *before: dict[str, Any]) -> list[dict[str, Any]]:
    return [*before, {"do": "run", "command": f"true {name}"}, {"do": "reply", "body": name}]


async def _mails(human: httpx.AsyncClient, session_id: str, mail_type: str) -> list[Any]:
    detail = ok(await human.get(f"/api/v1/me/sessions/{session_id}"))
    return [m for m in detail["mails"] if m["mail_type"] == mail_type]


async def _asked(human: httpx.AsyncClient, session_id: str) -> dict[str, Any]:
    """The conversation's permission request, once the bridge has sent it."""
    async with asyncio.timeout(60):
        while not (found := await _mails(human, session_id, "permission_request")):
            await asyncio.sleep(0.05)
    mail: dict[str, Any] = ok(await human.get(f"/api/v1/me/mail/{found[0]['mail_id']}"))
    return mail


async def _approve(human: httpx.AsyncClient, mail_id: str) -> None:
    body = {"mail_id": mail_id, "decision": "approve"}
    ok(await human.post("/api/v1/me/permission/decide", json=body))


async def _finished(human: httpx.AsyncClient, sessions: list[str]) -> None:
    async with asyncio.timeout(90):
        for session_id in sessions:
            while not await _mails(human, session_id, "final_summary"):
                await asyncio.sleep(0.1)


async def _starts(workspace: Path, count: int) -> None:
    """Until the stub's workers have started `count` turns (activity.log, stub_worker.py)."""
    activity = workspace / "activity.log"
    async with asyncio.timeout(60):
        while (activity.read_text() if activity.exists() else "").count(" start ") < count:
            await asyncio.sleep(0.05)


async def _once_each(human: httpx.AsyncClient, workspace: Path, sessions: dict[str, str]) -> None:
    """Every task's command ran once and got one final summary."""
    commands = (workspace / "commands.log").read_text().splitlines()
    for name, session_id in sessions.items():
        assert commands.count(f"true {name}") == 1, (name, commands)
        finals = await _mails(human, session_id, "final_summary")
        assert [m["body_preview"].split()[0] for m in finals] == [name]


def _bridge(tmp: Path, api: Api, key: str) -> BridgeProcess:
    workspace = tmp / "ws"
    workspace.mkdir(exist_ok=True)
    return BridgeProcess(api.base_url, key, tmp / "bridge-data", workspace)


async def test_the_gateway_restarting_just_after_the_bridge_skips_nothing(
    tmp_path: Path,
) -> None:
    """Bridge first, then the gateway at once: the restarted bridge has seen no event
    when its gateway goes away, and what is sent meanwhile still reaches it; the
    replies of the turns that ended meanwhile wait for the gateway (the turns are not
    run again)."""
    gateways = Gateways(tmp_path)
    api = await gateways.up()
    human = await api.human("jianf")
    bridge = _bridge(tmp_path, api, await api.agent_key())
    go = {"do": "wait_file", "file": "go.txt"}
    try:
        await bridge.start()
        sessions = {"t1": await _task(human, "t1", _asking("t1", go))}
        sessions["t2"] = await _task(human, "t2", _asking("t2"))
        first = await _asked(human, sessions["t1"])
        second = await _asked(human, sessions["t2"])

        await bridge.kill()  # while the bridge is down: a decision and a mail
        await _approve(human, first["mail_id"])
        sessions["t3"] = await _task(human, "t3", _running("t3", go))
        await bridge.start()
        # Both turns under way (and parked on go.txt: no reply, so no event yet).
        await _starts(bridge.workspace, 4)  # t1 and t2, then t1 resumed and t3

        await gateways.down()  # while the gateway is down: a decision by mail, a mail
        (bridge.workspace / "go.txt").touch()  # and t1 and t3 end: their replies wait
        human = await gateways.human(away=True)
        await send(gateways.api, "jianf", PASSWORD, reply_by_mail(f"jianf@{D}", second, "1"))
        sessions["t4"] = await _task(human, "t4", _running("t4"))
        await gateways.down()
        async with asyncio.timeout(60):
            while bridge.log().count(f": the gateway {UNREACHABLE}") < 2:
                await asyncio.sleep(0.05)
        human = await gateways.human()

        await _finished(human, list(sessions.values()))
        await _once_each(human, bridge.workspace, sessions)
    finally:
        await bridge.stop()
        await gateways.down()


async def test_a_bridge_started_while_the_gateway_is_down_waits_for_it(tmp_path: Path) -> None:
    """Gateway first, then the bridge, which starts while the gateway is still away:
    it waits (one log line per attempt, no traceback) and comes up with the gateway,
    with the decision and the mail sent meanwhile."""
    gateways = Gateways(tmp_path)
    api = await gateways.up()
    human = await api.human("jianf")
    bridge = _bridge(tmp_path, api, await api.agent_key())
    try:
        await bridge.start()
        sessions = {"t5": await _task(human, "t5", _asking("t5"))}
        asked = await _asked(human, sessions["t5"])

        await gateways.down()
        await bridge.kill()
        await bridge.launch()
        async with asyncio.timeout(60):
            while bridge.log().count(UNREACHABLE) < 2:
                assert bridge.process is not None and bridge.process.returncode is None, (
                    bridge.log()
                )
                await asyncio.sleep(0.05)
        human = await gateways.human(away=True)  # the humans go on meanwhile
        await _approve(human, asked["mail_id"])
        sessions["t6"] = await _task(human, "t6", _running("t6"))
        await gateways.down()

        human = await gateways.human()
        await bridge.wait_ready(timeout=90)
        await _finished(human, list(sessions.values()))
        await _once_each(human, bridge.workspace, sessions)
        log = bridge.log()
        assert "Traceback" not in log, log
        waits = [line for line in log.splitlines() if UNREACHABLE in line]
        assert all("ConnectError" in line for line in waits), waits
    finally:
        await bridge.stop()
        await gateways.down()


async def test_a_bridge_waiting_for_the_gateway_stops_quietly(tmp_path: Path) -> None:
    """SIGTERM while the gateway is awaited: a clean exit, no traceback."""
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    bridge = BridgeProcess(f"http://127.0.0.1:{port}", "amk_unused", tmp_path / "data", workspace)
    await bridge.launch()
    assert bridge.process is not None
    try:
        async with asyncio.timeout(60):
            while UNREACHABLE not in bridge.log() and bridge.process.returncode is None:
                await asyncio.sleep(0.05)
    finally:
        await bridge.stop()
    assert bridge.process is not None and bridge.process.returncode == 0, bridge.log()
    assert "Traceback" not in bridge.log()

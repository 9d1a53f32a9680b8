"""A kill-matrix cell on the stub platform: one agent with its own bridge data dir and
workspace, beside the module's gateway and human (tests/integration/
test_bridge_recovery*.py import the `human` and `cell` fixtures from here)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from tests.support.bridge import BridgeProcess, appears
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.processes import ended
from tests.support.sse import SseStream, open_stream


class Human:
    def __init__(self, api: Api, client: httpx.AsyncClient) -> None:
        self.api, self.client = api, client


@pytest_asyncio.fixture(name="human", scope="module", loop_scope="module")
async def human_fixture(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Human]:
    root = tmp_path_factory.mktemp("recovery")
    async with running_gateway(f"sqlite:///{root / 'agentmail.db'}", root / "data") as gateway:
        api = Api(gateway)
        try:
            yield Human(api, await api.human("jianf"))
        finally:
            await api.close()


class Cell:
    """One agent with its own bridge data dir and workspace, and the human's stream."""

    def __init__(self, human: Human, key: str, name: str, tmp: Path, stream: SseStream) -> None:
        self.human, self.key, self.name, self.stream = human, key, name, stream
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.data = tmp / "bridge-data"
        self.bridges: list[BridgeProcess] = []
        self.session_id = ""

    async def bridge(self) -> BridgeProcess:
        bridge = BridgeProcess(
            self.human.api.base_url, self.key, self.data, self.workspace, name=self.name
        )
        self.bridges.append(bridge)
        await bridge.start()
        return bridge

    async def task(
        self, steps: list[dict[str, Any]], to: str = "root", **extra: Any
    ) -> dict[str, Any]:
        body = {"to": f"{self.name}@{to}", "subject": "task", "body": json.dumps({"steps": steps})}
        sent: dict[str, Any] = ok(await self.human.client.post(HUMAN_SEND, json={**body, **extra}))
        self.session_id = sent["session_id"]
        return sent

    async def mail(self, mail_type: str) -> dict[str, Any]:
        """The next mail of this cell's conversation of that type, with its body."""
        while True:
            event = await self.stream.next_of("new_mail", timeout=60)
            data = event.json
            if data["session_id"] == self.session_id and data["mail_type"] == mail_type:
                full: dict[str, Any] = ok(
                    await self.human.client.get(f"/api/v1/me/mail/{data['mail_id']}")
                )
                return full

    async def answers(self) -> list[dict[str, Any]]:
        """The conversation's final answers: summaries and failure reports."""
        detail = ok(await self.human.client.get(f"/api/v1/me/sessions/{self.session_id}"))
        kinds = ("final_summary", "turn_failed", "permission_request")
        return [m for m in detail["mails"] if m["mail_type"] in kinds]

    def file(self, name: str) -> Path:
        return self.workspace / name

    def runs(self) -> int:
        path = self.file("ran.txt")
        return len(path.read_text().splitlines()) if path.exists() else 0

    def lose_completions(self) -> None:
        """The ledger as if the bridge died between sending its answers and recording them."""
        ledger = self.data / "ledger.jsonl"
        kept = [line for line in ledger.read_text().splitlines() if '"completed"' not in line]
        ledger.write_text("".join(line + "\n" for line in kept))

    async def recorded(self, permission_mail_id: str) -> None:
        """Until the bridge has the permission request in its records."""
        records = self.data / "permissions.jsonl"
        async with asyncio.timeout(60):
            while not (records.exists() and permission_mail_id in records.read_text()):
                await asyncio.sleep(0.02)

    async def decide(self, mail_id: str, decision: str) -> None:
        body = {"mail_id": mail_id, "decision": decision}
        decided = await self.human.client.post("/api/v1/me/permission/decide", json=body)
        assert decided.status_code == 200, decided.text

    async def completed(self, mail_id: str) -> None:
        """Until the bridge's ledger has the mail completed."""
        ledger = self.data / "ledger.jsonl"
        async with asyncio.timeout(60):
            while not any(
                json.loads(line) == {**json.loads(line), "mail_id": mail_id, "state": "completed"}
                for line in (ledger.read_text().splitlines() if ledger.exists() else [])
            ):
                await asyncio.sleep(0.02)


@pytest_asyncio.fixture(name="cell", loop_scope="module")
async def cell_fixture(
    human: Human, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Cell]:
    key = await human.api.agent_key()
    name = "agent" + str(abs(hash(request.node.name)) % 10**8)
    async with open_stream(human.client) as stream:
        built = Cell(human, key, name, tmp_path, stream)
        try:
            yield built
        finally:
            for bridge in built.bridges:
                await bridge.stop()


def gone(pid: int) -> bool:
    """Ended: no such process, or a zombie nobody reaped yet (it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] == "Z"


async def cut_while_approved_command_runs(
    cell: Cell, *, lose_records: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Cell (d) through the restart: an approved command runs detached (as pi runs it)
    when the bridge and its worker die, leaving the command orphaned in a session of its
    own; `lose_records` deletes permissions.jsonl with them. After the restart the
    command is ended and the human asked again: the first request and the new one."""
    command = "echo $$ >> ran.txt; exec sleep 600"
    steps: list[dict[str, Any]] = [
        {"do": "read_mail"},
        {"do": "ask", "action": command},
        {"do": "mark", "file": "worker"},
        {"do": "run", "command": command, "detached": True},
        {"do": "reply", "body": "done"},
    ]
    bridge = await cell.bridge()
    await cell.task(steps)
    asked = await cell.mail("permission_request")
    await cell.decide(asked["mail_id"], "approve")
    running = int(await appears(cell.file("ran.txt")))
    worker = int(cell.file("worker").read_text())
    await bridge.kill()
    with contextlib.suppress(ProcessLookupError):
        os.kill(worker, 9)  # as pi dies with its bridge, leaving the command
    assert not gone(running)
    if lose_records:
        (cell.data / "permissions.jsonl").unlink()
    await cell.bridge()
    await ended(running)
    again = await cell.mail("permission_request")
    assert again["mail_id"] != asked["mail_id"]
    assert "interrupted while the approved command ran" in again["body"]
    return asked, again

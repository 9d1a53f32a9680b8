"""The human's desk for the Claude Code platform tests (tests/platforms/test_claude*.py):
a real gateway on SQLite, the scripted fake model, `agentmail bridge claude` as a child
process with its own HOME and Claude Code config, and the human's event stream."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import Exchange, FakeModel, Reply, say, steps
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import SseStream, open_stream

TITLE_REQUEST = "You are naming a coding session"  # Claude Code's title prompt


class Desk:
    """The human's side: mail the agent, wait for what comes back, decide."""

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        self.api, self.human, self.stream, self.model = api, human, stream, model
        self.workspace = tmp / "ws"
        self.data = tmp / "bridge-data"
        self.config = tmp / "home" / ".claude"
        self.bridge: BridgeProcess
        self.arrived: list[dict[str, Any]] = []  # new_mail events not yet asked for

    async def task(self, subject: str, body: str = "Please do it.", **extra: Any) -> dict[str, Any]:
        mail = {"to": "builder@root.new", "subject": subject, "body": body, **extra}
        return ok(await self.human.post(HUMAN_SEND, json=mail))

    async def next_mail(
        self, session_id: str, mail_type: str, timeout: float = 60
    ) -> dict[str, Any]:
        """The next mail of this type in this conversation, read in full (mails of other
        conversations that arrive meanwhile are kept for their own turn)."""
        wanted = (session_id, mail_type)
        event = next((e for e in self.arrived if (e["session_id"], e["mail_type"]) == wanted), None)
        while event is None:
            arrived = (await self.stream.next_of("new_mail", timeout=timeout)).json
            if (arrived["session_id"], arrived["mail_type"]) == wanted:
                event = arrived
            else:
                self.arrived.append(arrived)
        if event in self.arrived:
            self.arrived.remove(event)
        return ok(await self.human.get(f"/api/v1/me/mail/{event['mail_id']}"))

    async def decide(self, mail_id: str, decision: str, note: str | None = None) -> None:
        body = {"mail_id": mail_id, "decision": decision, "note": note}
        ok(await self.human.post("/api/v1/me/permission/decide", json=body))

    async def completed(self, mail_id: str) -> None:
        """Until the bridge's ledger has the mail completed (run, or consumed unrun)."""
        ledger = self.data / "ledger.jsonl"
        async with asyncio.timeout(60):
            while not any(
                record.get("mail_id") == mail_id and record.get("state") == "completed"
                for record in map(json.loads, ledger.read_text().splitlines())
            ):
                await asyncio.sleep(0.05)

    def file(self, name: str) -> Path:
        return self.workspace / name


def script(*plan: Reply | Any, title: str = "Untitled work") -> Any:
    """A turn's plan for requests with tools; Claude Code's title request gets `title`."""
    turn = steps(*plan)

    def answer(exchange: Exchange) -> Reply:
        if TITLE_REQUEST in exchange.system:
            return say(json.dumps({"title": title}))
        return turn(exchange)

    return answer


@asynccontextmanager
async def claude_desk(tmp: Path, **bridge_env: str) -> AsyncIterator[Desk]:
    """A gateway (SQLite), the fake model and `agentmail bridge claude` with its own HOME
    and Claude Code config in `tmp`; at the end, no script error and no unknown path."""
    async with running_gateway(f"sqlite:///{tmp / 'agentmail.db'}", tmp / "data") as gateway:
        api = Api(gateway)
        model = FakeModel()
        await model.start()
        try:
            human = await api.human("ana")
            async with open_stream(human) as stream:
                desk = Desk(api, human, stream, model, tmp)
                desk.workspace.mkdir()
                desk.bridge = BridgeProcess(
                    api.base_url,
                    await api.agent_key(),
                    desk.data,
                    desk.workspace,
                    platform="claude",
                    HOME=str(tmp / "home"),
                    XDG_CONFIG_HOME=str(tmp / "home" / ".config"),
                    XDG_CACHE_HOME=str(tmp / "home" / ".cache"),
                    XDG_DATA_HOME=str(tmp / "home" / ".local" / "share"),
                    XDG_STATE_HOME=str(tmp / "home" / ".local" / "state"),
                    CLAUDE_CONFIG_DIR=str(desk.config),
                    ANTHROPIC_BASE_URL=model.url,
                    ANTHROPIC_API_KEY="sk-ant-fake",
                    AGENTMAIL_CLAUDE_MODEL="fake-model",
                    **bridge_env,
                )
                await desk.bridge.start()
                try:
                    yield desk
                finally:
                    await desk.bridge.stop()
        finally:
            await model.stop()
            await api.close()
    assert not model.errors, "the fake model's script failed:\n" + "\n".join(model.errors)
    assert not model.unhandled, f"Claude Code asked for unknown paths: {model.unhandled}"


def mail_id_in(exchange: Exchange) -> str:
    """The mail id the bridge's notice names (`read_mail(mail_id="…")`)."""
    found = re.search(r'read_mail\(mail_id="([^"]+)"\)', exchange.task)
    assert found, exchange.task
    return found.group(1)

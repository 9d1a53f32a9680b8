"""Claude Code bridged to a real gateway (`agentmail bridge claude`, claude-agent-sdk with
its bundled CLI), thinking with the scripted fake model on its Anthropic Messages side.

One gateway (SQLite), one fake model and one bridge serve the whole file; each test works
in a conversation of its own (`builder@root.new`) on files of its own, so the tests stay
independent while the platform starts once (docs/bridges.md#claude-code)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import Exchange, FakeModel, Reply, call, say, steps
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import SseStream, open_stream

pytestmark = pytest.mark.asyncio(loop_scope="module")
TITLE_REQUEST = "You are naming a coding session"


class Desk:
    """The human's side: mail the agent, wait for what comes back, decide."""

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        self.api, self.human, self.stream, self.model = api, human, stream, model
        self.workspace = tmp / "ws"
        self.config = tmp / "home" / ".claude"
        self.bridge: BridgeProcess

    async def task(self, subject: str, body: str = "Please do it.", **extra: Any) -> dict[str, Any]:
        mail = {"to": "builder@root.new", "subject": subject, "body": body, **extra}
        return ok(await self.human.post(HUMAN_SEND, json=mail))

    async def next_mail(self, session_id: str, mail_type: str, timeout: float = 60) -> dict[str, Any]:
        """The next mail of this type in this conversation, read in full."""
        while True:
            event = (await self.stream.next_of("new_mail", timeout=timeout)).json
            if event["session_id"] == session_id and event["mail_type"] == mail_type:
                return ok(await self.human.get(f"/api/v1/me/mail/{event['mail_id']}"))

    async def decide(self, mail_id: str, decision: str, note: str | None = None) -> None:
        body = {"mail_id": mail_id, "decision": decision, "note": note}
        ok(await self.human.post("/api/v1/me/permission/decide", json=body))

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


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def desk(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Desk]:
    tmp = tmp_path_factory.mktemp("claude")
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
                    tmp / "bridge-data",
                    desk.workspace,
                    platform="claude",
                    HOME=str(tmp / "home"),
                    CLAUDE_CONFIG_DIR=str(desk.config),
                    ANTHROPIC_BASE_URL=model.url,
                    ANTHROPIC_API_KEY="sk-ant-fake",
                    AGENTMAIL_CLAUDE_MODEL="fake-model",
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


def titles_written(config: Path) -> list[str]:
    """The custom titles in Claude Code's transcripts (what `claude --resume` lists)."""
    return [
        json.loads(line)["customTitle"]
        for transcript in config.glob("projects/*/*.jsonl")
        for line in transcript.read_text().splitlines()
        if '"custom-title"' in line
    ]


async def test_approved_then_named_then_the_next_mail_continues_the_session(desk: Desk) -> None:
    desk.model.script = script(
        lambda exchange: call("read_mail", mail_id=mail_id_in(exchange)),
        call("Bash", command="touch approved.txt", description="Create approved.txt"),
        lambda exchange: say(f"Done: {exchange.results[-1].text}"),
        title="approved.txt file",
    )
    task = await desk.task("Make approved.txt", "Create the file approved.txt, please.")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    assert asked["action"] == "touch approved.txt" and asked["expires_at"]
    assert asked["options"] == ["approve", "always allow", "reject"]
    assert "touch approved.txt" in asked["body"]
    assert not desk.file("approved.txt").exists()
    await desk.decide(asked["mail_id"], "approve")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("approved.txt").exists()
    assert final["auto"] is True and final["parent_mail_id"] == task["mail_id"]
    assert final["body"] == "Done: (Bash completed with no output)"
    [first] = desk.model.exchanges(task["mail_id"])[:1]
    assert "Create the file approved.txt" in desk.model.exchanges(task["mail_id"])[1].everything
    assert "mcp__agentmail__read_mail" in first.tools
    assert "mcp__agentmail__request_permission" not in first.tools

    # Claude Code's title became the alias, and the alias its title.
    session = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["session"]
    assert session["session_alias"] == "approved-txt-file"
    assert "approved-txt-file" in titles_written(desk.config)

    desk.model.script = script(say("It is still there."))
    again = await desk.task("Still there?", to="builder@root.approved-txt-file")
    assert again["session_id"] == task["session_id"]
    await desk.next_mail(task["session_id"], "final_summary")
    [resumed] = desk.model.exchanges(again["mail_id"])
    history = [c.arguments for m in resumed.messages for c in m.tool_calls]
    assert {"command": "touch approved.txt", "description": "Create approved.txt"} in history

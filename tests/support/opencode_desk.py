"""opencode bridged to a real gateway, for the platform suite (tests/platforms/test_opencode*.py).

One gateway (SQLite), one fake model and one bridge (`agentmail bridge opencode`, which
starts `opencode serve` as its child) serve a whole test file; each test works in a
conversation of its own (`builder@root.new`) on files of its own. opencode's HOME and
XDG directories are the test's; its user config names the fake model as an
OpenAI-compatible provider, as a user's would name a real one (docs/bridges.md#opencode).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import Exchange, FakeModel, Reply, say, steps
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import SseStream, open_stream

_BUILDS = Path(__file__).resolve().parents[1] / "platforms/opencode/node_modules"


def _binary() -> Path:
    """opencode's build for this CPU, chosen as its npm launcher chooses (AVX2 or baseline)."""
    avx2 = " avx2 " in f" {Path('/proc/cpuinfo').read_text().replace(chr(10), ' ')} "
    build = "opencode-linux-x64" if avx2 else "opencode-linux-x64-baseline"
    return _BUILDS / build / "bin" / "opencode"


PASSWORD = "opencode-test-password"
_SERVING = re.compile(r"opencode serve on (http://\S+) \(pid (\d+)\)")


def user_config(model: FakeModel) -> dict[str, Any]:
    """What a user's ~/.config/opencode/opencode.json says: the provider, nothing fetched."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "lsp": False,
        "formatter": False,
        "enabled_providers": ["fake"],
        "model": "fake/fake-model",
        "small_model": "fake/fake-model",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": model.openai_base, "apiKey": "fake-key"},
                "models": {"fake-model": {"name": "Fake model", "tool_call": True}},
            }
        },
    }


class Desk:
    """The human's side: mail the agent, wait for what comes back, decide; and a look
    into opencode itself (its sessions) where a test must see the platform's state."""

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        self.api, self.human, self.stream, self.model = api, human, stream, model
        self.tmp = tmp
        self.workspace = tmp / "ws"
        self.data = tmp / "bridge-data"
        self.bridge: BridgeProcess

    async def task(self, subject: str, body: str = "Please do it.", **extra: Any) -> dict[str, Any]:
        mail = {"to": "builder@root.new", "subject": subject, "body": body, **extra}
        return ok(await self.human.post(HUMAN_SEND, json=mail))

    async def next_mail(
        self, session_id: str, mail_type: str, timeout: float = 90
    ) -> dict[str, Any]:
        """The next mail of this type in this conversation, read in full."""
        while True:
            event = (await self.stream.next_of("new_mail", timeout=timeout)).json
            if event["session_id"] == session_id and event["mail_type"] == mail_type:
                return ok(await self.human.get(f"/api/v1/me/mail/{event['mail_id']}"))

    async def decide(self, mail_id: str, decision: str, note: str | None = None) -> None:
        body = {"mail_id": mail_id, "decision": decision, "note": note}
        ok(await self.human.post("/api/v1/me/permission/decide", json=body))

    async def mails(self, session_id: str, mail_type: str) -> list[dict[str, Any]]:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return [m for m in detail["mails"] if m["mail_type"] == mail_type]

    async def alias(self, session_id: str) -> str:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return str(detail["session"]["session_alias"])

    def file(self, name: str) -> Path:
        return self.workspace / name

    def serving(self) -> tuple[str, int]:
        """The URL and pid of the opencode the bridge started last (from its log)."""
        found = _SERVING.findall(self.bridge.log_path.read_text())
        assert found, self.bridge.log_path.read_text()
        url, pid = found[-1]
        return url, int(pid)

    def opencode_session(self, conversation: str) -> str:
        """The opencode session the bridge mapped to this conversation (its journal)."""
        lines = (self.data / "opencode.jsonl").read_text().splitlines()
        mapped = [json.loads(line) for line in lines if conversation in line]
        return str(mapped[-1]["session"])

    async def opencode(self, path: str) -> Any:
        url, _ = self.serving()
        async with httpx.AsyncClient(base_url=url, auth=("opencode", PASSWORD)) as http:
            response = await http.get(path, params={"directory": str(self.workspace)})
            response.raise_for_status()
            return response.json()


def mail_id_in(exchange: Exchange) -> str:
    """The mail id the bridge's notice names (`read_mail(mail_id="…")`)."""
    found = re.search(r'read_mail\(mail_id="([^"]+)"\)', exchange.task)
    assert found, exchange.task
    return found.group(1)


def script(*plan: Reply | Callable[[Exchange], Reply], title: str = "Untitled work") -> Any:
    """A turn's plan for requests with tools; opencode's title request (no tools, its
    small model) gets `title`."""
    turn = steps(*plan)

    def answer(exchange: Exchange) -> Reply:
        return turn(exchange) if exchange.tools else say(title)

    return answer


@asynccontextmanager
async def opencode_desk(tmp: Path) -> AsyncIterator[Desk]:
    async with running_gateway(f"sqlite:///{tmp / 'agentmail.db'}", tmp / "data") as gateway:
        api = Api(gateway)
        model = FakeModel()
        await model.start()
        try:
            human = await api.human("ana")
            async with open_stream(human) as stream:
                desk = Desk(api, human, stream, model, tmp)
                desk.workspace.mkdir()
                home = tmp / "home"
                (home / ".config" / "opencode").mkdir(parents=True)
                config = json.dumps(user_config(model), indent=1)
                (home / ".config" / "opencode" / "opencode.json").write_text(config)
                desk.bridge = BridgeProcess(
                    api.base_url,
                    await api.agent_key(),
                    desk.data,
                    desk.workspace,
                    platform="opencode",
                    HOME=str(home),
                    XDG_CONFIG_HOME=str(home / ".config"),
                    XDG_DATA_HOME=str(home / ".local" / "share"),
                    XDG_CACHE_HOME=str(home / ".cache"),
                    XDG_STATE_HOME=str(home / ".local" / "state"),
                    AGENTMAIL_OPENCODE_BIN=str(_binary()),
                    AGENTMAIL_OPENCODE_MODEL="fake/fake-model",
                    AGENTMAIL_OPENCODE_PASSWORD=PASSWORD,
                    OPENCODE_DISABLE_MODELS_FETCH="1",
                    OPENCODE_DISABLE_LSP_DOWNLOAD="1",
                    OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
                    OPENCODE_DISABLE_CLAUDE_CODE="1",
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
    assert not model.unhandled, f"opencode asked for unknown paths: {model.unhandled}"

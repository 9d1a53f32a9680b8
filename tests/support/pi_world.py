"""A gateway, the fake model and a pi bridge (`agentmail bridge pi`, a real child
process) for the pi platform suite and the bridge latency benchmark.

pi (pi-coding-agent) gets its own home and config, thinks with the fake model, and
sees nothing of the machine's ~/.pi and no network.

pi reads its config from PI_CODING_AGENT_DIR: `models.json` names a custom
OpenAI-compatible provider `fake` at the fake model (pi's docs/models.md), and
`settings.json` makes it the default, with install telemetry off. PI_OFFLINE turns
off every start-up network call (update and package checks, telemetry; pi's
docs/settings.md). HOME and the XDG dirs point into the test's directory.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import FakeModel, Script, fake_model
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.mailbox import Mailbox, mailbox

ROOT = Path(__file__).resolve().parents[2]
PI = ROOT / "tests" / "platforms" / "pi" / "node_modules" / ".bin" / "pi"


def pi_environment(home: Path, model: FakeModel) -> dict[str, str]:
    """The environment a bridge (and the pi it starts) runs with."""
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": model.openai_base,
        "api": "openai-completions",
        "apiKey": "fake-key",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [
            {"id": name, "contextWindow": 128000, "maxTokens": 4096} for name in model.models
        ],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    settings = {
        "defaultProvider": "fake",
        "defaultModel": model.models[0],
        "enableInstallTelemetry": False,
        "quietStartup": True,
    }
    (agent / "settings.json").write_text(json.dumps(settings))
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_TELEMETRY": "0",
        "PI_SKIP_VERSION_CHECK": "1",
        "AGENTMAIL_PI_BINARY": str(PI),
        "AGENTMAIL_PI_PROVIDER": "fake",
        "AGENTMAIL_PI_MODEL": model.models[0],
    }


@dataclass
class PiWorld:
    api: Api
    human: httpx.AsyncClient
    mail: Mailbox
    model: FakeModel
    bridge: BridgeProcess
    workspace: Path
    data: Path  # the bridge's data dir

    async def task(self, subject: str, to: str = "pi@root.new", **extra: Any) -> dict[str, Any]:
        """A human mails the agent; the answer has mail_id, session_id, session_alias."""
        body = {"to": to, "subject": subject, "body": f"Please: {subject}", **extra}
        return ok(await self.human.post(HUMAN_SEND, json=body))

    async def decide(self, mail_id: str, decision: str, note: str | None = None) -> None:
        body = {"mail_id": mail_id, "decision": decision, "note": note}
        ok(await self.human.post("/api/v1/me/permission/decide", json=body))

    def session_file(self, session_id: str) -> Path:
        """The conversation's pi session file, as the bridge's session map has it."""
        conversations = json.loads((self.data / "pi" / "conversations.json").read_text())
        return Path(conversations[session_id]["file"])


@contextlib.asynccontextmanager
async def pi_world(tmp: Path, script: Script, **bridge_env: str) -> AsyncIterator[PiWorld]:
    """Everything on loopback: the fake model, a gateway on SQLite, the pi bridge."""
    async with (
        fake_model(script) as model,
        running_gateway(f"sqlite:///{tmp / 'agentmail.db'}", tmp / "gateway") as gateway,
    ):
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            key = await api.agent_key()
            workspace = tmp / "ws"
            workspace.mkdir()
            env = {**pi_environment(tmp / "home", model), **bridge_env}
            data = tmp / "bridge-data"
            bridge = BridgeProcess(
                api.base_url, key, data, workspace, platform="pi", name="pi", **env
            )
            try:
                await bridge.start()  # inside: a bridge that never got ready is stopped
                async with mailbox(human) as box:
                    yield PiWorld(api, human, box, model, bridge, workspace, data)
            finally:
                await bridge.stop()
        finally:
            await api.close()

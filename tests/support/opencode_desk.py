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
from tests.support.desk import HumanDesk, bridged_desk, home_environment
from tests.support.fake_model import Exchange, FakeModel, Reply, say, steps
from tests.support.gateway import Api
from tests.support.sse import SseStream

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


class Desk(HumanDesk):
    """The human's desk, and a look into opencode itself (its sessions) where a test must
    see the platform's state."""

    wait = 90.0

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        super().__init__(api, human, stream, model, tmp)
        self.bridge: BridgeProcess

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


def script(*plan: Reply | Callable[[Exchange], Reply], title: str = "Untitled work") -> Any:
    """A turn's plan for requests with tools; opencode's title request (no tools, its
    small model) gets `title`."""
    turn = steps(*plan)

    def answer(exchange: Exchange) -> Reply:
        return turn(exchange) if exchange.tools else say(title)

    return answer


def opencode_environment(tmp: Path, model: FakeModel) -> dict[str, str]:
    """A bridge's environment: opencode's HOME in `tmp`, with the user config naming the
    fake model (written here), and nothing fetched."""
    home = tmp / "home"
    (home / ".config" / "opencode").mkdir(parents=True, exist_ok=True)
    config = json.dumps(user_config(model), indent=1)
    (home / ".config" / "opencode" / "opencode.json").write_text(config)
    return {
        **home_environment(home),
        "AGENTMAIL_OPENCODE_BIN": str(_binary()),
        "AGENTMAIL_OPENCODE_MODEL": "fake/fake-model",
        "AGENTMAIL_OPENCODE_PASSWORD": PASSWORD,
        "AGENTMAIL_OPENCODE_START_TIMEOUT": "180",  # a bound: a busy machine is slow
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    }


@asynccontextmanager
async def opencode_desk(tmp: Path) -> AsyncIterator[Desk]:
    def environment(model: FakeModel) -> dict[str, str]:
        return opencode_environment(tmp, model)

    async with bridged_desk(Desk, tmp, "opencode", "opencode", environment) as (desk, bridge):
        desk.bridge = bridge
        yield desk

"""The human's desk for the Claude Code platform tests (tests/platforms/test_claude*.py):
a real gateway on SQLite, the scripted fake model, `agentmail bridge claude` as a child
process with its own HOME and Claude Code config, and the human's event stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.desk import HumanDesk, bridged_desk, home_environment
from tests.support.fake_model import Exchange, FakeModel, Reply, say, steps
from tests.support.gateway import Api
from tests.support.sse import SseStream

TITLE_REQUEST = "You are naming a coding session"  # Claude Code's title prompt


class Desk(HumanDesk):
    """The human's desk, with the bridge and where Claude Code keeps its sessions."""

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        super().__init__(api, human, stream, model, tmp)
        self.config = tmp / "home" / ".claude"
        self.bridge: BridgeProcess


def script(*plan: Reply | Any, title: str = "Untitled work") -> Any:
    """A turn's plan for requests with tools; Claude Code's title request gets `title`."""
    turn = steps(*plan)

    def answer(exchange: Exchange) -> Reply:
        if TITLE_REQUEST in exchange.system:
            return say(json.dumps({"title": title}))
        return turn(exchange)

    return answer


def claude_environment(tmp: Path, model: FakeModel) -> dict[str, str]:
    """A bridge's environment: its own HOME and Claude Code config in `tmp`, the fake
    model as Anthropic's API."""
    return {
        **home_environment(tmp / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp / "home" / ".claude"),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "AGENTMAIL_CLAUDE_MODEL": "fake-model",
    }


@asynccontextmanager
async def claude_desk(tmp: Path, **bridge_env: str) -> AsyncIterator[Desk]:
    """`agentmail bridge claude` with its own HOME and Claude Code config in `tmp`."""

    def environment(model: FakeModel) -> dict[str, str]:
        return {**claude_environment(tmp, model), **bridge_env}

    async with bridged_desk(Desk, tmp, "claude", "Claude Code", environment) as (desk, bridge):
        desk.bridge = bridge
        yield desk

"""A real platform's bridge beside a gateway that can go away, for the long kill matrix
(tests/platforms/test_*_long.py, `make platforms-long`; the cells in kill_cells.py).

Each test has a world of its own: a fresh database, the fake model, `agentmail bridge
PLATFORM` as a child process, the human jianf. The human reads mail by asking the
API (no event stream), so a gateway restart in the middle of a test costs her only a
new login. The model's script routes each task by a key that is in the task's subject
and in its command, so a turn resumed with a decision in words ("The human approved
`echo KEY >> ran.txt`") finds its route too.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx

from bridges.runtime.process_tree import descendants
from tests.support.bridge import BridgeProcess
from tests.support.claude_desk import TITLE_REQUEST, claude_environment
from tests.support.fake_model import Exchange, FakeModel, Reply, Script, call, fake_model, say
from tests.support.gateway import Api
from tests.support.gateways import Gateways
from tests.support.http import HUMAN_SEND, ok
from tests.support.opencode_desk import opencode_environment
from tests.support.pi_world import pi_environment

Environment = Callable[[Path, FakeModel], dict[str, str]]
ENVIRONMENTS: dict[str, Environment] = {
    "pi": lambda tmp, model: pi_environment(tmp / "home", model),
    "claude": claude_environment,
    "opencode": opencode_environment,
}
WAIT = 120.0  # seconds a mail may take (a real platform on a busy machine)


def side_request(exchange: Exchange) -> bool:
    """A request that is not the turn's own: a title (Claude Code's title prompt,
    opencode's small model asked without tools)."""
    return not exchange.tools or TITLE_REQUEST in exchange.system


def command(key: str) -> str:
    return f"echo {key} >> ran.txt"


def asks(key: str) -> Callable[[Exchange], Reply]:
    """A turn that asks to run `command(key)`, then says `KEY done`. A turn resumed with
    the decision in words calls it again: the bridge answers from the decision."""
    return lambda e: say(f"{key} done") if e.results else call("bash", command=command(key))


def says(key: str) -> Callable[[Exchange], Reply]:
    return lambda exchange: say(f"{key} done")


class KillWorld:
    def __init__(self, tmp: Path, platform: str, model: FakeModel, gateways: Gateways) -> None:
        self.tmp, self.platform, self.model, self.gateways = tmp, platform, model, gateways
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.data = tmp / "bridge-data"
        self.routes: dict[str, Script] = {}
        self.human: httpx.AsyncClient
        self.bridge: BridgeProcess

    async def answer(self, exchange: Exchange) -> Reply:
        if side_request(exchange):
            return say("Kill matrix")
        # The turn's own task first: a conversation's history names its earlier tasks.
        for text in (exchange.task, exchange.everything):
            for key, script in reversed(self.routes.items()):
                if key in text:
                    reply = script(exchange)
                    return await reply if inspect.isawaitable(reply) else reply
        return say("unrouted")

    @property
    def api(self) -> Api:
        assert self.gateways.api is not None, "the gateway is down"
        return self.gateways.api

    # -- the gateway ---------------------------------------------------------------

    async def gateway_away(self) -> None:
        """Down for the bridge; up on another port for the human."""
        await self.gateways.down()
        self.human = await self.gateways.human(away=True)

    async def gateway_back(self) -> None:
        await self.gateways.down()
        self.human = await self.gateways.human()

    async def bridge_waits(self, line: str, count: int = 2) -> None:
        """Until the bridge has found the gateway away `count` times: its log has `line`
        (`reconnecting`: the stream; `is not reachable`: its registration) that often."""
        async with asyncio.timeout(WAIT):
            while self.bridge.log().count(line) < count:
                await asyncio.sleep(0.05)

    # -- the human -----------------------------------------------------------------

    async def task(self, key: str, script: Script, to: str = "builder@root.new") -> dict[str, Any]:
        self.routes[key] = script
        mail = {"to": to, "subject": key, "body": f"Please: {key}"}
        sent: dict[str, Any] = ok(await self.human.post(HUMAN_SEND, json=mail))
        return sent

    async def decide(self, mail_id: str, decision: str = "approve") -> None:
        body = {"mail_id": mail_id, "decision": decision}
        ok(await self.human.post("/api/v1/me/permission/decide", json=body))

    async def mails(self, session_id: str, mail_type: str) -> list[dict[str, Any]]:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return [m for m in detail["mails"] if m["mail_type"] == mail_type]

    async def until(self, session_id: str, mail_type: str, count: int = 1) -> list[Any]:
        """Once the conversation has `count` mails of this type: all of them, read."""
        async with asyncio.timeout(WAIT):
            while len(found := await self.mails(session_id, mail_type)) < count:
                await asyncio.sleep(0.1)
        return [ok(await self.human.get(f"/api/v1/me/mail/{m['mail_id']}")) for m in found]

    async def alias(self, session_id: str) -> str:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return str(detail["session"]["session_alias"])

    # -- the bridge's side -----------------------------------------------------------

    def started(self) -> list[int]:
        """Every process below the running bridge (the platform, its tools, commands)."""
        assert self.bridge.process is not None
        return descendants(self.bridge.process.pid)

    def runs(self, key: str) -> int:
        """How many times `command(key)` ran."""
        ran = self.workspace / "ran.txt"
        return ran.read_text().split().count(key) if ran.exists() else 0

    def first_requests(self, key: str) -> list[Exchange]:
        """The first request of each turn the platform ran for `key`'s task."""
        return [
            e
            for e in self.model.exchanges(key)
            if e.step == 0 and not side_request(e) and f'"{key}"' in e.task
        ]

    async def recorded(self, name: str, text: str) -> None:
        """Until the bridge's file `name` (permissions.jsonl, ledger.jsonl) holds `text`."""
        path = self.data / name
        async with asyncio.timeout(WAIT):
            while not (path.exists() and text in path.read_text()):
                await asyncio.sleep(0.02)

    async def completed(self, mail_id: str) -> None:
        path = self.data / "ledger.jsonl"
        async with asyncio.timeout(WAIT):
            while not any(
                record.get("mail_id") == mail_id and record.get("state") == "completed"
                for record in map(json.loads, path.read_text().splitlines())
            ):
                await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def kill_world(tmp: Path, platform: str) -> AsyncIterator[KillWorld]:
    """The world, the bridge started and ready; at the end the bridge stopped, and no
    script error or unknown request in the fake model."""
    gateways = Gateways(tmp)
    async with fake_model() as model:
        world = KillWorld(tmp, platform, model, gateways)
        model.script = world.answer
        try:
            api = await gateways.up()
            world.human = await api.human("jianf")
            world.bridge = BridgeProcess(
                api.base_url,
                await api.agent_key(),
                world.data,
                world.workspace,
                platform=platform,
                **ENVIRONMENTS[platform](tmp, model),
            )
            try:
                await world.bridge.start()
                yield world
            finally:
                await world.bridge.stop()
        finally:
            await gateways.down()
    assert not model.errors, "the fake model's script failed:\n" + "\n".join(model.errors)
    assert not model.unhandled, f"{platform} asked for unknown paths: {model.unhandled}"

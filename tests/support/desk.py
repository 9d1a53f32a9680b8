"""The human's side of a platform test: mail the bridged agent, wait for what comes back,
decide. Each platform's desk (tests/support/claude_desk.py, opencode_desk.py) adds how
its platform is started and looked into."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx

from tests.support.bridge import BridgeProcess
from tests.support.fake_model import Exchange, FakeModel
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import SseStream, open_stream


class HumanDesk:
    wait = 60.0  # seconds a mail may take to come back

    def __init__(
        self, api: Api, human: httpx.AsyncClient, stream: SseStream, model: FakeModel, tmp: Path
    ) -> None:
        self.api, self.human, self.stream, self.model = api, human, stream, model
        self.tmp = tmp
        self.workspace = tmp / "ws"
        self.data = tmp / "bridge-data"
        self.arrived: list[dict[str, Any]] = []  # new_mail events not yet asked for

    async def task(self, subject: str, body: str = "Please do it.", **extra: Any) -> dict[str, Any]:
        mail = {"to": "builder@root.new", "subject": subject, "body": body, **extra}
        return ok(await self.human.post(HUMAN_SEND, json=mail))

    async def next_mail(
        self, session_id: str, mail_type: str, timeout: float | None = None
    ) -> dict[str, Any]:
        """The next mail of this type in this conversation, read in full (mails of other
        conversations that arrive meanwhile are kept for their own turn)."""
        wanted = (session_id, mail_type)
        event = next((e for e in self.arrived if (e["session_id"], e["mail_type"]) == wanted), None)
        while event is None:
            arrived = (await self.stream.next_of("new_mail", timeout=timeout or self.wait)).json
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

    async def mails(self, session_id: str, mail_type: str) -> list[dict[str, Any]]:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return [m for m in detail["mails"] if m["mail_type"] == mail_type]

    async def alias(self, session_id: str) -> str:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return str(detail["session"]["session_alias"])

    async def completed(self, mail_id: str) -> None:
        """Until the bridge's ledger has the mail completed (run, or consumed unrun)."""
        ledger = self.data / "ledger.jsonl"
        async with asyncio.timeout(self.wait):
            while not any(
                record.get("mail_id") == mail_id and record.get("state") == "completed"
                for record in map(json.loads, ledger.read_text().splitlines())
            ):
                await asyncio.sleep(0.05)

    def file(self, name: str) -> Path:
        return self.workspace / name


def mail_id_in(exchange: Exchange) -> str:
    """The mail id the bridge's notice names (`read_mail(mail_id="…")`)."""
    found = re.search(r'read_mail\(mail_id="([^"]+)"\)', exchange.task)
    assert found, exchange.task
    return found.group(1)


def home_environment(home: Path) -> dict[str, str]:
    """HOME and the XDG directories in the test's own `home`: nothing of the machine's."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


@asynccontextmanager
async def human_world(
    tmp: Path, platform: str
) -> AsyncIterator[tuple[Api, httpx.AsyncClient, SseStream, FakeModel]]:
    """A gateway on SQLite in `tmp`, the fake model, the human `ana` and her event stream;
    at the end, no script error and no request to a path the fake model does not know."""
    async with running_gateway(f"sqlite:///{tmp / 'agentmail.db'}", tmp / "data") as gateway:
        api = Api(gateway)
        model = FakeModel()
        await model.start()
        try:
            human = await api.human("ana")
            async with open_stream(human) as stream:
                yield api, human, stream, model
        finally:
            await model.stop()
            await api.close()
    assert not model.errors, "the fake model's script failed:\n" + "\n".join(model.errors)
    assert not model.unhandled, f"{platform} asked for unknown paths: {model.unhandled}"


DeskT = TypeVar("DeskT", bound=HumanDesk)


@asynccontextmanager
async def bridged_desk(
    make: Callable[[Api, httpx.AsyncClient, SseStream, FakeModel, Path], DeskT],
    tmp: Path,
    platform: str,
    title: str,
    environment: Callable[[FakeModel], dict[str, str]],
) -> AsyncIterator[tuple[DeskT, BridgeProcess]]:
    """`human_world` with the desk `make` builds and `agentmail bridge <platform>` started
    in `environment`; a bridge that never got ready is stopped as well."""
    async with human_world(tmp, title) as (api, human, stream, model):
        desk = make(api, human, stream, model, tmp)
        desk.workspace.mkdir()
        bridge = BridgeProcess(
            api.base_url,
            await api.agent_key(),
            desk.data,
            desk.workspace,
            platform=platform,
            **environment(model),
        )
        try:
            await bridge.start()
            yield desk, bridge
        finally:
            await bridge.stop()

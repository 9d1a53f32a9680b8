"""request_permission, called in-process on the client SDK against a real gateway: it
blocks until the human decides (here: rejects, with a note), or until the request
expires at `timeout_seconds` — then it says `expired`, and a late decision is refused.
On SQLite only (expiry itself is tested on both databases in test_permissions.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bridges.client import AgentClient
from bridges.tools.catalog import call_tool
from bridges.tools.definition import ToolContext
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok, refused
from tests.support.sse import open_stream


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


@pytest.fixture
async def context(api: Api, tmp_path: Path) -> AsyncIterator[ToolContext]:
    key = await api.agent_key()
    async with AgentClient(api.base_url, key) as client:
        await client.register("helper", [{"name": "work", "path": str(tmp_path)}], "test")
        yield ToolContext(client, (tmp_path,))


async def test_a_rejection_comes_back_with_the_note(api: Api, context: ToolContext) -> None:
    alice = await api.human("alice")
    async with open_stream(alice) as stream:
        asking = asyncio.create_task(
            call_tool(
                context,
                "request_permission",
                {"to": "alice@", "question": "May I drop the table?", "action": "DROP TABLE t"},
            )
        )
        event = (await stream.next_of("new_mail", timeout=20)).json
        decision = {"mail_id": event["mail_id"], "decision": "reject", "note": "Never."}
        ok(await alice.post("/api/v1/me/permission/decide", json=decision))
        outcome = await asyncio.wait_for(asking, 30)
    assert (outcome["state"], outcome["decision"], outcome["note"]) == (
        "decided",
        "reject",
        "Never.",
    )


async def test_no_decision_within_the_timeout_is_expired(api: Api, context: ToolContext) -> None:
    alice = await api.human("alice")
    arguments = {"to": "alice@", "question": "May I deploy?", "timeout_seconds": 10}
    outcome = await asyncio.wait_for(call_tool(context, "request_permission", arguments), 40)
    assert (outcome["state"], outcome["decision"]) == ("expired", None)
    late = {"mail_id": outcome["mail_id"], "decision": "approve"}
    refused(await alice.post("/api/v1/me/permission/decide", json=late), 409, "already_decided")

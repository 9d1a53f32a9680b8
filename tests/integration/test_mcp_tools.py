"""`agentmail mcp` with the `mcp` SDK's client, over stdio and streamable HTTP: every
tool against a real gateway, refusals included.

The MCP server is a separate process (as an MCP agent starts it); it registers
its agent on start, since the key it is given is not bound yet. On SQLite only:
every gateway route the tools call is covered on both databases elsewhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from core.version import VERSION
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok
from tests.support.mcp_server import http_client, http_server, mcp_env, stdio_client
from tests.support.mcp_server import workspace_args as args_for
from tests.support.sse import open_stream

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
TOOL_NAMES = {
    "send_mail",
    "read_inbox",
    "read_mail",
    "read_thread",
    "forward_mail",
    "upload_attachment",
    "download_attachment",
    "suggest_address",
    "list_contacts",
    "session_participants",
    "request_permission",
    "connect_to_server",
}


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def call(client: Client, name: str, **arguments: Any) -> Any:
    result = await client.call_tool(name, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, f"{name}: {text}"
    assert result.structured_content == json.loads(text)
    return result.structured_content


async def refused(client: Client, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, result
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


async def _world(api: Api, tmp_path: Path) -> tuple[dict[str, str], list[str], str]:
    """Alice and Bob, a workspace directory, an agent key not bound yet: the server's
    environment and arguments, and the key."""
    await api.human("alice")
    await api.human("bob")
    work = tmp_path / "work"
    work.mkdir()
    key = await api.agent_key()
    return mcp_env(api.base_url, key), args_for([("work", work)]), key


async def test_every_tool_over_stdio(api: Api, tmp_path: Path) -> None:
    env, args, _ = await _world(api, tmp_path)
    async with stdio_client(env, args) as client:
        assert client.server_info.version == VERSION  # the package's (core/version.py)
        await _every_tool(api, client, tmp_path / "work")


async def test_every_tool_over_http_behind_the_agent_key(api: Api, tmp_path: Path) -> None:
    env, args, key = await _world(api, tmp_path)
    async with http_server(env, args) as url:
        assert url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
        await _refused_without_the_key(url, key)
        async with http_client(url, key) as client:
            await _every_tool(api, client, tmp_path / "work")


async def _refused_without_the_key(url: str, key: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        for given in ({}, {"Authorization": "Bearer amk_wrong"}, {"Authorization": key}):
            refused = await http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **given})
            assert refused.status_code == 401, given
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert refused.json()["error"]["code"] == "unauthorized"


async def _every_tool(api: Api, client: Client, work: Path) -> None:
    alice = await api.login("alice", PASSWORD)
    listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} == TOOL_NAMES
    assert all(tool.description and tool.input_schema for tool in listed.tools)

    # It registered on start (the key was not bound): the agent and its workspace exist.
    status = await call(client, "connect_to_server")
    assert (status["status"], status["pending_mails"]) == ("connected", 0)
    agents = ok(await alice.get("/api/v1/agents"))["agents"]
    [helper] = [agent for agent in agents if agent["agent_name"] == "helper"]
    assert helper["workspaces"][0]["path"] == str(work)  # tmp_path is resolved already
    assert helper["platform"] == "mcp"

    # A human's task, with a file.
    upload = ok(
        await alice.post("/api/v1/me/attachments", files={"file": ("report.txt", b"Q3: up")})
    )
    task = ok(
        await alice.post(
            "/api/v1/me/mail/send",
            json={
                "to": "helper@work",
                "subject": "Summarise the report",
                "body": "Three lines, please.",
                "attachment_ids": [upload["attachment_id"]],
            },
        )
    )
    inbox = await call(client, "read_inbox")
    [mail] = inbox["mails"]
    assert (mail["mail_id"], mail["body"]) == (task["mail_id"], "Three lines, please.")
    assert mail["from"].startswith("alice@")
    assert mail["attachments"][0]["filename"] == "report.txt"
    assert (await call(client, "read_inbox"))["mails"] == []  # listed mail was marked read
    full = await call(client, "read_mail", mail_id=task["mail_id"])
    assert (full["subject"], full["status"]) == ("Summarise the report", "read")

    attachment_id = mail["attachments"][0]["attachment_id"]
    saved = await call(
        client, "download_attachment", attachment_id=attachment_id, save_as="in/report.txt"
    )
    assert (work / "in" / "report.txt").read_bytes() == b"Q3: up"
    assert saved == {"saved_to": str((work / "in" / "report.txt").resolve()), "size": 6}
    outside = await refused(
        client, "download_attachment", attachment_id=attachment_id, save_as="../escape.txt"
    )
    assert "outside your workspaces" in outside
    assert not (work.parent / "escape.txt").exists()

    (work / "summary.md").write_text("Up in Q3.", encoding="utf-8")
    uploaded = await call(client, "upload_attachment", path="summary.md")
    assert (uploaded["filename"], uploaded["size"]) == ("summary.md", 9)
    assert "outside your workspaces" in await refused(
        client, "upload_attachment", path="/etc/hostname"
    )

    reply = await call(
        client,
        "send_mail",
        to=mail["from"],
        reply_to=task["mail_id"],
        subject="Re: Summarise the report",
        body="Up in Q3.",
        attachment_ids=[uploaded["attachment_id"]],
        propose_alias="q3-summary",
        propose_reason="It is about Q3.",
    )
    assert reply["session_id"] == task["session_id"]
    seen = ok(await alice.get(f"/api/v1/me/mail/{reply['mail_id']}"))
    assert seen["attachments"][0]["filename"] == "summary.md"
    proposals = ok(
        await alice.get(
            f"/api/v1/me/sessions/{task['session_id']}/proposals", params={"state": "pending"}
        )
    )["proposals"]
    assert [p["alias"] for p in proposals] == ["q3-summary"]

    # Refusals are tool errors the model can read: the gateway's message, naming the alias.
    unknown = await refused(client, "send_mail", to="alice@.no-such-alias", subject="Hi", body="?")
    assert "no-such-alias" in unknown and "unknown_alias" in unknown
    assert "'to' is a required property" in await refused(
        client, "send_mail", subject="Hi", body="?"
    )
    assert "Additional properties" in await refused(client, "read_inbox", folder="x")

    thread = await call(client, "read_thread", mail_id=reply["mail_id"])
    assert [(m["mail_id"], m["depth"]) for m in thread["mails"]] == [
        (task["mail_id"], -1),
        (reply["mail_id"], 0),
    ]
    forwarded = await call(client, "forward_mail", mail_id=task["mail_id"], to="bob@", body="FYI")
    assert forwarded["session_id"] != task["session_id"]

    found = await call(client, "suggest_address", query="ali")
    assert "alice@" in [c["address"] for c in found["candidates"]]
    contacts = await call(client, "list_contacts")
    assert {c["name"] for c in contacts["contacts"]} == {"alice", "bob"}
    people = await call(client, "session_participants", session_id=task["session_id"])
    assert {p["name"] for p in people["participants"]} == {"alice", "helper"}

    await _permission_decided_by_a_human(alice, client, mail)


async def _permission_decided_by_a_human(
    alice: httpx.AsyncClient, client: Client, task: dict[str, Any]
) -> None:
    """request_permission blocks until the human decides over REST, then returns it."""
    async with open_stream(alice) as stream:
        asking = asyncio.create_task(
            call(
                client,
                "request_permission",
                to=task["from"],
                question="May I publish the summary?",
                action="publish summary.md",
                reply_to=task["mail_id"],
                timeout_seconds=60,
            )
        )
        event = (await stream.next_of("new_mail", timeout=20)).json
        assert event["mail_type"] == "permission_request"
        alias = task["session_alias"]
        assert event["subject"] == f"[needs decision] #{alias}: May I publish the summary?"
        assert not asking.done()
        decision = {"mail_id": event["mail_id"], "decision": "approve", "note": "Ship it."}
        ok(await alice.post("/api/v1/me/permission/decide", json=decision))
        outcome = await asyncio.wait_for(asking, 30)
    assert outcome["mail_id"] == event["mail_id"]
    assert (outcome["state"], outcome["decision"], outcome["note"]) == (
        "decided",
        "approve",
        "Ship it.",
    )
    assert (outcome["decided_by"], outcome["action"]) == ("alice", "publish summary.md")

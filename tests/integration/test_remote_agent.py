"""bridges/examples/remote_agent.py, run as a separate process against a real gateway.

The agent runs under `python -I -S` (no site-packages, no PYTHONPATH): the loop
works with the standard library alone. A human mails a task, the agent replies,
asks permission, the human decides over REST and the agent sends its final
answer. On SQLite only: the gateway side of the loop runs on both databases in
test_collaboration_loop.py.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.sse import SseStream, open_stream

SCRIPT = Path(__file__).resolve().parents[2] / "bridges" / "examples" / "remote_agent.py"
WORKSPACE = ("demo", "/srv/demo")


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


@asynccontextmanager
async def remote_agent(
    gateway: Gateway, key: str, *extra: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        str(SCRIPT),
        "--name",
        "echo",
        "--workspace",
        "=".join(WORKSPACE),
        *extra,
        env={"AGENTMAIL_URL": gateway.http_url, "AGENTMAIL_AGENT_KEY": key},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _registered(process: asyncio.subprocess.Process) -> None:
    """Its log says it registered (and then it subscribes and catches up)."""
    assert process.stderr is not None
    async with asyncio.timeout(20):
        while b"registered as" not in (line := await process.stderr.readline()):
            assert line, "the agent ended before registering"


async def _next_from_agent(stream: SseStream, human: httpx.AsyncClient) -> dict[str, object]:
    event = (await stream.next_of("new_mail", timeout=20)).json
    mail: dict[str, object] = ok(await human.get(f"/api/v1/me/mail/{event['mail_id']}"))
    return mail


async def _ends(process: asyncio.subprocess.Process) -> str:
    _, err = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 0, err.decode()
    return err.decode()


async def test_a_task_live_approved(api: Api) -> None:
    human = await api.human("alice")
    key = await api.agent_key()
    async with remote_agent(api.gateway, key, "--exit-after", "1") as process:
        await _registered(process)
        async with open_stream(human) as stream:
            task = ok(
                await human.post(
                    "/api/v1/me/mail/send",
                    json={"to": "echo@demo", "subject": "Rotate the logs", "body": "Daily."},
                )
            )
            reply = await _next_from_agent(stream, human)
            assert (reply["parent_mail_id"], reply["mail_type"]) == (task["mail_id"], "normal")
            assert reply["session_id"] == task["session_id"]

            asked = await _next_from_agent(stream, human)
            assert asked["mail_type"] == "permission_request"
            assert asked["session_id"] == task["session_id"]
            assert asked["action"] == "answer the task 'Rotate the logs'"
            assert asked["permission_state"] == "open"
            decided = {"mail_id": asked["mail_id"], "decision": "approve", "note": "Go ahead."}
            ok(await human.post("/api/v1/me/permission/decide", json=decided))

            final = await _next_from_agent(stream, human)
        await _ends(process)
    assert final["mail_type"] == "final_summary"
    assert final["session_id"] == task["session_id"]
    assert final["parent_mail_id"] == task["mail_id"]
    assert "Approved by alice" in str(final["body"]) and "Go ahead." in str(final["body"])
    # The task was marked read by the agent.
    seen = ok(await api.client(key).get(f"/api/v1/mail/{task['mail_id']}"))
    assert seen["status"] == "read"


async def test_mail_sent_before_it_starts_is_caught_up_and_a_rejection_is_honoured(
    api: Api,
) -> None:
    human = await api.human("alice")
    key = await api.agent_key()
    agent = api.client(key)
    workspaces = [{"name": WORKSPACE[0], "path": WORKSPACE[1]}]
    ok(await agent.post("/api/v1/agent/register", json={"name": "echo", "workspaces": workspaces}))
    async with open_stream(human) as stream:
        task = ok(
            await human.post(
                "/api/v1/me/mail/send",
                json={"to": "echo@demo", "subject": "Drop the table", "body": "All of it."},
            )
        )
        async with remote_agent(api.gateway, key, "--exit-after", "1") as process:
            await _next_from_agent(stream, human)  # "Got it"
            asked = await _next_from_agent(stream, human)
            assert asked["mail_type"] == "permission_request"
            decided = {"mail_id": asked["mail_id"], "decision": "reject", "note": "Never."}
            ok(await human.post("/api/v1/me/permission/decide", json=decided))
            final = await _next_from_agent(stream, human)
            await _ends(process)
    assert final["mail_type"] == "final_summary"
    assert final["parent_mail_id"] == task["mail_id"]
    assert "I did not act" in str(final["body"]) and "Never." in str(final["body"])
    # Exactly one answer of each kind: catch-up and the live stream did not both run it.
    listed = ok(await human.get("/api/v1/me/mail/inbox", params={"limit": 50}))["mails"]
    assert sorted(mail["mail_type"] for mail in listed) == [
        "final_summary",
        "normal",
        "permission_request",
    ]

"""Presence: registration, heartbeats, the directory, going offline, `agent_online` events."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from core.store.models import Agent, utcnow
from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.sse import SseStream, open_stream


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text


async def directory(client: httpx.AsyncClient, **params: Any) -> dict[str, str]:
    listed = ok(await client.get("/api/v1/agents", params=params))
    return {a["agent_name"]: a["status"] for a in listed["agents"]}


async def presence_of(stream: SseStream, agent_name: str, timeout: float = 5.0) -> dict[str, Any]:
    """The next `agent_online` event about `agent_name` (others are skipped)."""
    async with asyncio.timeout(timeout):
        while True:
            event: dict[str, Any] = (await stream.next_of("agent_online")).json
            if event["agent_name"] == agent_name:
                return event


def drained(stream: SseStream) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    while not stream.events.empty():
        event = stream.events.get_nowait()
        seen.append((event.event, event.json))
    return seen


def start_beating(client: httpx.AsyncClient, every: float = 0.05) -> asyncio.Task[None]:
    """Keep an agent online with heartbeats until the task is stopped."""

    async def beat() -> None:
        while True:
            ok(await client.post("/api/v1/agent/heartbeat"))
            await asyncio.sleep(every)

    return asyncio.create_task(beat())


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()


async def _last_seen_an_hour_ago(gateway: Gateway, name: str) -> None:
    assert gateway.store is not None
    an_hour_ago = utcnow() - timedelta(hours=1)
    await gateway.store.write(
        lambda s: s.execute(update(Agent).where(Agent.name == name).values(last_seen=an_hour_ago))
    )


async def wait_for_status(client: httpx.AsyncClient, name: str, status: str) -> None:
    async with asyncio.timeout(30):  # the sweep runs every second; the margin only ends a hang
        while (await directory(client)).get(name) != status:
            await asyncio.sleep(0.05)


async def test_register_heartbeat_and_directory(api: Api) -> None:
    human = await api.human("jianf")
    async with open_stream(human) as stream:
        builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])
        event = await presence_of(stream, "builder")
        assert event["status"] == "online"
        assert event["last_seen"] is not None

    listed = ok(await human.get("/api/v1/agents"))["agents"]
    assert [a["agent_name"] for a in listed] == ["builder"]
    [agent] = listed
    assert agent["status"] == "online"
    assert agent["platform"] == "test"
    assert agent["workspaces"] == [
        {
            "name": "ModelRouter",
            "path": "/home/u/ModelRouter",
            "address": "builder@ModelRouter",
            "email": "builder+ModelRouter@agentmail.localhost",
        }
    ]

    beat = ok(await builder.post("/api/v1/agent/heartbeat"))
    assert beat == {"status": "ok", "agent_status": "online", "pending_mails": 0, "sessions": []}
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])
    assert ok(await reviewer.post("/api/v1/agent/heartbeat"))["status"] == "ok"

    # Agents and humans both see the directory, filtered by status.
    for client in (human, builder):
        assert await directory(client) == {"builder": "online", "reviewer": "online"}
        assert await directory(client, status="online") == {
            "builder": "online",
            "reviewer": "online",
        }
        assert await directory(client, status="offline") == {}
    refused(await human.get("/api/v1/agents", params={"status": "away"}), 422, "invalid_request")
    refused(await human.post("/api/v1/agent/heartbeat"), 403, "forbidden")


async def test_a_silent_agent_goes_offline_and_comes_back(
    database_url: str, tmp_path: Path
) -> None:
    """The gateway's own sweep (every heartbeat/3 = 1 s) takes an agent offline once its
    last beat is older than 3 heartbeats (9 s). Time passing is its `last_seen` set an
    hour back; the others beat every 50 ms, 9 s within the limit however busy the machine."""
    async with running_gateway(database_url, tmp_path / "d", heartbeat_seconds=3) as gateway:
        api = Api(gateway)
        beats: list[asyncio.Task[None]] = []
        try:
            human = await api.human("jianf")
            silent = await api.agent("silent", [("ws", "/srv/ws")])
            peer = await api.agent("peer", [("ws", "/srv/peer")])
            beats.append(start_beating(peer))
            loner = await api.agent("loner", [("ws", "/srv/loner")])
            beats.append(start_beating(loner))
            # silent and peer share a conversation; loner shares none with silent.
            ok(
                await human.post(
                    "/api/v1/me/mail/send",
                    json={"to": "silent@ws", "cc": ["peer@ws"], "subject": "pair"},
                )
            )
            assert await directory(human, status="online") == {
                "loner": "online",
                "peer": "online",
                "silent": "online",
            }
            assert await directory(human, status="offline") == {}

            async with (
                open_stream(human) as human_stream,
                open_stream(peer) as peer_stream,
                open_stream(loner) as loner_stream,
            ):
                await _last_seen_an_hour_ago(gateway, "silent")
                await wait_for_status(human, "silent", "offline")
                assert await directory(human, status="offline") == {"silent": "offline"}
                assert await directory(loner, status="online") == {
                    "loner": "online",
                    "peer": "online",
                }
                for stream in (human_stream, peer_stream):
                    event = await presence_of(stream, "silent")
                    assert event["status"] == "offline"
                    assert event["last_seen"] is not None

                # It beats again: online, and the same audience is told.
                beat = ok(await silent.post("/api/v1/agent/heartbeat"))
                assert (beat["status"], beat["agent_status"]) == ("ok", "online")
                assert await directory(human, status="online") == {
                    "loner": "online",
                    "peer": "online",
                    "silent": "online",
                }
                for stream in (human_stream, peer_stream):
                    assert (await presence_of(stream, "silent"))["status"] == "online"

                # An agent that shares no conversation with it hears nothing of it: a
                # mail sent to it after both changes is the next event it is told of.
                marker = ok(
                    await human.post(
                        "/api/v1/me/mail/send", json={"to": "loner@ws", "subject": "marker"}
                    )
                )
                seen = []
                while (event := await loner_stream.next()).event != "new_mail":
                    seen.append((event.event, event.json))
                assert event.json["mail_id"] == marker["mail_id"]
                assert [
                    (kind, data)
                    for kind, data in seen
                    if kind == "agent_online" and data["agent_name"] == "silent"
                ] == []
        finally:
            for task in beats:
                await stop(task)
            await api.close()

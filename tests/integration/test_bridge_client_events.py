"""The client's event stream against a real gateway, both DBs: resume with
`Last-Event-ID` across a gateway restart, and `resync` when the cursor is unknown."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from bridges.client import AgentClient, Backoff, Event
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok

FAST = Backoff(0.05, 0.2)


async def _next_mail(events: AsyncIterator[Event]) -> Event:
    async for event in events:
        if event.type == "new_mail":
            return event
    raise AssertionError("the stream ended")


async def _mail(human: httpx.AsyncClient, subject: str) -> str:
    sent = ok(await human.post(HUMAN_SEND, json={"to": "builder@", "subject": subject}))
    mail_id: str = sent["mail_id"]
    return mail_id


async def test_the_stream_resumes_after_the_gateway_restarts(
    database_url: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    async with running_gateway(database_url, data) as gateway:
        port = gateway.http_port
        api = Api(gateway)
        human = await api.human("jianf")
        key = await api.agent_key()
        client = AgentClient(api.base_url, key)
        await client.register("builder", [{"name": "root", "path": "/srv/root"}])
        stream = client.events(backoff=FAST, idle_timeout=5)
        events = aiter(stream)
        reading = asyncio.create_task(_next_mail(events))
        async with asyncio.timeout(10):
            await stream.connected.wait()  # subscribed: what is sent now reaches it
        first_id = await _mail(human, "one")
        first = await reading
        assert first.data["mail_id"] == first_id
        await api.close()
    # The reader is not pulling while the gateway is down and up again: the mails sent
    # meanwhile reach it only by the reconnect's Last-Event-ID replay.
    async with running_gateway(database_url, data, http_port=port) as gateway:
        api = Api(gateway)
        human = await api.login("jianf", "password123")
        missed = [await _mail(human, "two"), await _mail(human, "three")]
        got = [(await _next_mail(events)).data["mail_id"] for _ in missed]
        assert got == missed
        assert stream.reconnects >= 1 and stream.last_event_id is not None
        assert first.id is not None and stream.last_event_id > first.id
        live = await _mail(human, "four")
        assert (await _next_mail(events)).data["mail_id"] == live
        await client.close()
        await api.close()


async def test_an_unknown_cursor_gets_resync_then_live_events(api: Api) -> None:
    human = await api.human("jianf")
    async with AgentClient(api.base_url, await api.agent_key()) as client:
        await client.register("builder", [{"name": "root", "path": "/srv/root"}])
        stream = client.events(last_event_id=10**12, backoff=FAST)
        events = aiter(stream)
        first = await anext(events)
        assert first.type == "resync"
        assert first.id is not None and first.id < 10**12
        assert stream.last_event_id == first.id
        sent = await _mail(human, "after the resync")
        assert (await _next_mail(events)).data["mail_id"] == sent


async def test_a_stream_that_saw_no_event_yet_resumes_without_a_gap(
    database_url: str, tmp_path: Path
) -> None:
    """The gateway's `connected` frame carries the stream's position: a stream that
    was subscribed but saw no event when its gateway restarted replays the mails sent
    before it reconnected, instead of starting from the later "now"."""
    data = tmp_path / "data"
    async with running_gateway(database_url, data) as gateway:
        port = gateway.http_port
        api = Api(gateway)
        await api.human("jianf")
        client = AgentClient(api.base_url, await api.agent_key())
        await api.close()
        await client.register("builder", [{"name": "root", "path": "/srv/root"}])
        stream = client.events(backoff=FAST, idle_timeout=5)
        reading = asyncio.create_task(_next_mail(aiter(stream)))
        try:
            async with asyncio.timeout(10):
                await stream.connected.wait()
        finally:
            reading.cancel()  # nobody reads while the gateway is away
            with contextlib.suppress(asyncio.CancelledError):
                await reading
    try:
        assert stream.last_event_id is not None  # before any event
        async with running_gateway(database_url, data, http_port=port) as gateway:
            api = Api(gateway)
            human = await api.login("jianf", "password123")
            missed = [await _mail(human, "while away"), await _mail(human, "still away")]
            events = aiter(stream)  # reconnects now, with the position it was given
            try:
                async with asyncio.timeout(10):
                    got = [(await _next_mail(events)).data["mail_id"] for _ in missed]
            finally:
                await events.aclose()  # type: ignore[attr-defined]
                await api.close()
            assert got == missed
    finally:
        await client.close()

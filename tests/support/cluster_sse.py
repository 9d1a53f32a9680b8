"""An event-stream client that reconnects, as a browser's EventSource does.

It follows `/api/v1/events/stream` through nginx; when its connection ends (its
replica killed or stopped) it connects again through nginx with the last event id
it saw in `Last-Event-ID` (the `id:` of the `connected` comment counts too: WHATWG
HTML §9.2.6 sets the last event id from any `id:` field), so the gateway replays
what it missed. It records every event with an id, in the order it got them, and the
replica (`X-Upstream`, set by nginx) each connection reached.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import httpx

from tests.support.sse import blocks

STREAM = "/api/v1/events/stream"
RECONNECT_PAUSE = 0.2


@dataclass
class Follower:
    client: httpx.AsyncClient
    last_id: str | None = None
    first_id: str | None = None  # the position of its first connection
    events: list[tuple[int, str, str]] = field(default_factory=list)  # (id, type, data)
    upstreams: list[str] = field(default_factory=list)
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._follow())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def of(self, event_type: str) -> list[tuple[int, str, str]]:
        return [event for event in self.events if event[1] == event_type]

    async def wait_for(self, event_type: str, count: int, timeout: float = 60.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.of(event_type)) < count:
                await asyncio.sleep(0.05)

    async def _follow(self) -> None:
        while True:
            headers = {} if self.last_id is None else {"Last-Event-ID": self.last_id}
            with contextlib.suppress(httpx.TransportError):
                async with self.client.stream(
                    "GET", STREAM, headers=headers, timeout=httpx.Timeout(10.0, read=None)
                ) as response:
                    if response.status_code == 200:
                        upstream = response.headers.get("x-upstream", "")
                        self.upstreams.append(upstream.rsplit(",", 1)[-1].strip())
                        await self._read(response)
            await asyncio.sleep(RECONNECT_PAUSE)

    async def _read(self, response: httpx.Response) -> None:
        async for block in blocks(response.aiter_lines()):
            if block.id is not None:
                self.last_id = block.id
                self.first_id = self.first_id or block.id
                self.connected.set()
                if block.data:
                    self.events.append((int(block.id), block.event, "\n".join(block.data)))


async def followers_until_one_on(
    client: httpx.AsyncClient, upstream: str, most: int = 9
) -> list[Follower]:
    """Followers opened one after another until one is on `upstream` (nginx turns round
    robin over the replicas, with other requests between)."""
    followers: list[Follower] = []
    while len(followers) < most:
        follower = Follower(client)
        follower.start()
        followers.append(follower)
        async with asyncio.timeout(30):
            await follower.connected.wait()
        if follower.upstreams[-1] == upstream:
            return followers
    raise AssertionError(f"no stream of {most} reached {upstream}")

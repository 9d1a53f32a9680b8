"""opencode's event stream (`GET /event?directory=`), one reader per workspace directory,
fanned out to the turns that watch it.

A turn subscribes (`watch`) before it acts, and the reader is connected (opencode's
`server.connected` arrived) before `watch` returns, so no event of the turn's own
making is missed. When the stream drops (opencode restarted, or the connection
broke) the reader reconnects with a jittered backoff and puts `RECONNECTED` in
every watcher's queue: what happened in the gap is not replayed (opencode keeps no
cursor), so a watcher then asks opencode for the state instead (pending prompts,
the session's status).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx

from bridges.client.backoff import Backoff
from bridges.client.sse import parse_frames
from bridges.platforms.opencode.server import OpencodeServer

_log = logging.getLogger("agentmail.bridge.opencode")
RECONNECTED: dict[str, Any] = {"type": "agentmail.reconnected", "properties": {}}
Event = dict[str, Any]
CONNECT_SECONDS = 60.0


class _Reader:
    def __init__(self, server: OpencodeServer, directory: str) -> None:
        self.server = server
        self.directory = directory
        self.queues: set[asyncio.Queue[Event]] = set()
        self.connected = asyncio.Event()
        self.task = asyncio.create_task(self._run(), name=f"opencode events {directory}")

    async def _run(self) -> None:
        attempt, first = 0, True
        while True:
            try:
                http = await self.server.http()
                async for event in self._connection(http):
                    attempt = 0
                    if event.get("type") == "server.connected":
                        self.connected.set()
                        if not first:
                            self._publish(RECONNECTED)
                        first = False
                        continue
                    self._publish(event)
            except (httpx.HTTPError, httpx.StreamError, RuntimeError) as error:
                _log.info("opencode event stream lost (%s); reconnecting", error)
            self.connected.clear()
            await asyncio.sleep(Backoff(base=0.2, cap=5.0).delay(attempt))
            attempt += 1

    async def _connection(self, http: httpx.AsyncClient) -> AsyncIterator[Event]:
        timeout = httpx.Timeout(10.0, read=None)  # opencode sends heartbeats, but not always
        params = {"directory": self.directory}
        async with http.stream("GET", "/event", params=params, timeout=timeout) as response:
            response.raise_for_status()
            async for frame in parse_frames(response.aiter_lines()):
                if not frame.data:
                    continue
                try:
                    event = json.loads("\n".join(frame.data))
                except ValueError:
                    continue
                if isinstance(event, dict):
                    yield event

    def _publish(self, event: Event) -> None:
        for queue in self.queues:
            queue.put_nowait(event)


class EventHub:
    def __init__(self, server: OpencodeServer) -> None:
        self.server = server
        self._readers: dict[str, _Reader] = {}

    @contextlib.asynccontextmanager
    async def watch(self, directory: str) -> AsyncIterator[asyncio.Queue[Event]]:
        """The directory's events from now on, for as long as the block runs."""
        reader = self._readers.get(directory)
        if reader is None:
            reader = self._readers[directory] = _Reader(self.server, directory)
        queue: asyncio.Queue[Event] = asyncio.Queue()
        reader.queues.add(queue)
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                await reader.connected.wait()
            yield queue
        finally:
            reader.queues.discard(queue)

    async def close(self) -> None:
        for reader in self._readers.values():
            reader.task.cancel()
        for reader in self._readers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await reader.task
        self._readers.clear()

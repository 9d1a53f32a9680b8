"""A gateway that goes away and comes back: one database, one gateway at a time on it,
on a given HTTP port or any.

"The gateway is down" for a bridge while the humans go on: the gateway runs on
another HTTP port of the same database for a while (the bridge cannot reach it, a
human can), then comes back on the bridge's port — the deterministic form of a
restart with mail arriving in between (tests/integration/test_bridge_restarts.py on
the stub platform, tests/platforms/*_long.py on the real ones)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx

from tests.support.gateway import PASSWORD, Api, running_gateway


class Gateways:
    def __init__(self, tmp: Path) -> None:
        self.database_url = f"sqlite:///{tmp / 'agentmail.db'}"
        self.data = tmp / "gateway"
        self._stack: contextlib.AsyncExitStack | None = None
        self.api: Api | None = None

    async def up(self, port: int = 0) -> Api:
        assert self._stack is None
        self._stack = contextlib.AsyncExitStack()
        running = running_gateway(self.database_url, self.data, http_port=port)
        self.api = Api(await self._stack.enter_async_context(running))
        return self.api

    async def down(self) -> None:
        if self.api is not None:
            await self.api.close()
        if self._stack is not None:
            await self._stack.aclose()
        self._stack, self.api = None, None

    async def human(self, port: int = 0, name: str = "jianf") -> httpx.AsyncClient:
        """The gateway up on `port`, and `name` logged in to it."""
        api = await self.up(port)
        return await api.login(name, PASSWORD)

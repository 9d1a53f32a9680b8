"""A gateway that goes away and comes back: one database, one gateway at a time on it,
on its home HTTP port or, away, on any other.

"The gateway is down" for a bridge while the humans go on: the gateway runs on
another HTTP port of the same database for a while (the bridge cannot reach it, a
human can), then comes back on the bridge's port — the deterministic form of a
restart with mail arriving in between (tests/integration/test_bridge_restarts.py on
the stub platform, tests/platforms/*_long.py on the real ones). The home port lies
below the ephemeral range (ports.py), so that no connection takes it meanwhile."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx

from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.ports import steady_ports


class Gateways:
    def __init__(self, tmp: Path) -> None:
        self.database_url = f"sqlite:///{tmp / 'agentmail.db'}"
        self.data = tmp / "gateway"
        self._stack: contextlib.AsyncExitStack | None = None
        self.api: Api | None = None
        self.home = steady_ports(1)[0]

    async def up(self, away: bool = False) -> Api:
        """The gateway up on its home port, or on any other when `away`."""
        assert self._stack is None
        self._stack = contextlib.AsyncExitStack()
        port = 0 if away else self.home
        running = running_gateway(self.database_url, self.data, http_port=port)
        self.api = Api(await self._stack.enter_async_context(running))
        return self.api

    async def down(self) -> None:
        if self.api is not None:
            await self.api.close()
        if self._stack is not None:
            await self._stack.aclose()
        self._stack, self.api = None, None

    async def human(self, away: bool = False, name: str = "jianf") -> httpx.AsyncClient:
        """The gateway up (`up`), and `name` logged in to it."""
        api = await self.up(away)
        return await api.login(name, PASSWORD)

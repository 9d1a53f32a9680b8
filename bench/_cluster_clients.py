"""`cluster.py`'s clients: the accounts, the SSE readers spread over a configuration's
processes, and what they saw (each wrk mail's arrival and its commit-to-arrival time)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from _children import Child
from _load import API, read_stream
from _targets import check

SENDER, SENDER_PASSWORD = "bench-sender", "bench-sender-password"


@dataclass
class Arrivals:
    """What `read_stream` reports (the interface of _load.Deliveries that
    `_rest_wrk.check_wrk_deliveries` reads): subject → agents it arrived on."""

    wrk: dict[str, list[int]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)  # seconds, commit → arrival
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, agent: int, payload: dict[str, Any], _perf: float, wall: float) -> None:
        self.wrk.setdefault(str(payload.get("subject", "")), []).append(agent)
        with contextlib.suppress(KeyError, TypeError, ValueError):
            committed = datetime.fromisoformat(payload["created_at"]).timestamp()
            self.latencies.append(wall - committed)
        self.changed.set()

    def wrk_arrivals(self) -> dict[str, list[int]]:
        return self.wrk


async def setup_accounts(
    base: str, admin_password: str, prefixes: list[str], agents: int
) -> tuple[str, dict[str, list[str]]]:
    """The human sender's user key, and each configuration's agents' keys (registered)."""
    origin = {"Origin": base}
    gate = asyncio.Semaphore(10)
    async with httpx.AsyncClient(base_url=base, headers=origin, timeout=60.0) as admin:
        login = {"username": "admin", "password": admin_password}
        check(await admin.post(f"{API}/auth/login", json=login), "admin login")
        user = {"name": SENDER, "password": SENDER_PASSWORD, "is_admin": False}
        check(await admin.post(f"{API}/admin/users", json=user), "create sender", 201)

        async def agent(name: str) -> str:
            async with gate:
                body = {"lifecycle": "permanent", "label": f"bench {name}"}
                key = str(
                    check(await admin.post(f"{API}/admin/agent-keys", json=body), "key", 201)["key"]
                )
                registration = {
                    "name": name,
                    "workspaces": [{"name": "ws", "path": f"/bench/{name}"}],
                    "platform": "bench",
                }
                answer = await admin.post(
                    f"{API}/agent/register",
                    json=registration,
                    headers={"Authorization": f"Bearer {key}"},
                )
                check(answer, f"register {name}")
                return key

        keys = {
            prefix: list(await asyncio.gather(*(agent(f"{prefix}{i:02d}") for i in range(agents))))
            for prefix in prefixes
        }
    async with httpx.AsyncClient(base_url=base, headers=origin, timeout=60.0) as human:
        login = {"username": SENDER, "password": SENDER_PASSWORD}
        check(await human.post(f"{API}/auth/login", json=login), "sender login")
        body = {"lifecycle": "permanent", "label": "bench"}
        user_key = str(check(await human.post(f"{API}/me/keys", json=body), "key", 201)["key"])
    return user_key, keys


class Streams:
    """Every configuration's SSE readers: agent i's stream on process i % len(servers)."""

    def __init__(self) -> None:
        self._clients: list[httpx.AsyncClient] = []
        self._readers: list[asyncio.Task[None]] = []

    async def open(
        self, servers: list[Child], prefix: str, keys: list[str], into: Arrivals
    ) -> None:
        clients = [
            httpx.AsyncClient(
                base_url=server.base_url,
                limits=httpx.Limits(max_connections=len(keys) + 5, max_keepalive_connections=0),
                timeout=15.0,
            )
            for server in servers
        ]
        self._clients += clients
        connected = [asyncio.Event() for _ in keys]
        readers = [
            asyncio.create_task(read_stream(clients[i % len(clients)], i, key, into, connected[i]))
            for i, key in enumerate(keys)
        ]
        self._readers += readers
        waiting = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in connected)))
        done, _ = await asyncio.wait([waiting, *readers], timeout=60, return_when="FIRST_COMPLETED")
        if waiting not in done:
            waiting.cancel()
            raise RuntimeError(f"the SSE streams of {prefix} did not all connect")

    async def close(self) -> None:
        for reader in self._readers:
            reader.cancel()
        for reader in self._readers:
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reader
        for client in self._clients:
            await client.aclose()

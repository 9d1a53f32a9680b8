"""The two servers as the load sees them: the gateway with its agents, and the baseline.

`GatewayTarget` sets the gateway up over HTTP the way any client would (admin,
a human sender with a user key, agent keys and registrations, one SSE stream per
agent), waits after each round until every mail has arrived, and checks at the
end that each mail reached exactly its recipient, once. `HelloTarget` sends the
same requests to the hello-world `POST /echo`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import time
from typing import Any

import httpx
from _children import Child
from _load import (
    API,
    Deliveries,
    Load,
    Senders,
    Sent,
    agent_name,
    idle_round_trips,
    read_stream,
    send_all,
    timed_load,
)

ADMIN_PASSWORD = "bench-admin-password"
SENDER = "bench-sender"
SENDER_PASSWORD = "bench-sender-password"


def _origin(base: str) -> dict[str, str]:
    """A login cookie works only from the gateway's own origin (api/csrf.py)."""
    return {"Origin": base}


def check(response: httpx.Response, what: str, status: int = 200) -> dict[str, Any]:
    if response.status_code != status:
        raise RuntimeError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    result: dict[str, Any] = response.json()
    return result


class GatewayTarget:
    """The real gateway: set up over HTTP, 50 agents listening on SSE, a human sending."""

    path = f"{API}/me/mail/send"

    def __init__(self, args: argparse.Namespace, server: Child) -> None:
        self.args = args
        self.server = server
        self.deliveries = Deliveries()
        self.sent: list[Sent] = []  # every POST, warm-up included
        self.problems: list[str] = []
        self.setup_seconds = math.nan
        self._readers: list[asyncio.Task[None]] = []
        self._sse: httpx.AsyncClient | None = None
        self.senders: Senders | None = None
        self._closed = False
        self.user_key = ""

    async def setup(self) -> None:
        started = time.perf_counter()
        args = self.args
        user_key, keys = await self._accounts()
        self.user_key = user_key
        self._sse = httpx.AsyncClient(
            base_url=self.server.base_url,
            limits=httpx.Limits(max_connections=args.agents + 5, max_keepalive_connections=0),
            timeout=15.0,
        )
        connected = [asyncio.Event() for _ in range(args.agents)]
        self._readers = [
            asyncio.create_task(read_stream(self._sse, i, keys[i], self.deliveries, connected[i]))
            for i in range(args.agents)
        ]
        waiting = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in connected)))
        done, _ = await asyncio.wait(
            [waiting, *self._readers], timeout=30, return_when="FIRST_COMPLETED"
        )
        if waiting not in done:
            waiting.cancel()
            failed = [r for r in self._readers if r in done]
            reason = repr(failed[0].exception()) if failed else "timeout"
            raise RuntimeError(f"SSE streams did not all connect: {reason}")
        self.senders = Senders(
            self.server.base_url, args.senders, user_key, shared=args.shared_client
        )
        self.setup_seconds = time.perf_counter() - started

    async def _accounts(self) -> tuple[str, list[str]]:
        """Admin login, the human sender and its user key, agent keys and registrations."""
        base, agents = self.server.base_url, self.args.agents
        gate = asyncio.Semaphore(10)
        async with httpx.AsyncClient(base_url=base, headers=_origin(base), timeout=30.0) as admin:
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            check(await admin.post(f"{API}/auth/login", json=login), "admin login")
            user = {"name": SENDER, "password": SENDER_PASSWORD, "is_admin": False}
            check(await admin.post(f"{API}/admin/users", json=user), "create sender", 201)

            async def agent_key(i: int) -> str:
                async with gate:
                    body = {"lifecycle": "permanent", "label": f"bench {agent_name(i)}"}
                    answer = await admin.post(f"{API}/admin/agent-keys", json=body)
                    return str(check(answer, "agent key", 201)["key"])

            keys = await asyncio.gather(*(agent_key(i) for i in range(agents)))

        async with httpx.AsyncClient(base_url=base, headers=_origin(base), timeout=30.0) as human:
            login = {"username": SENDER, "password": SENDER_PASSWORD}
            check(await human.post(f"{API}/auth/login", json=login), "sender login")
            body = {"lifecycle": "permanent", "label": "bench"}
            user_key = str(check(await human.post(f"{API}/me/keys", json=body), "key", 201)["key"])

        async with httpx.AsyncClient(base_url=base, timeout=30.0) as plain:

            async def register(i: int) -> None:
                name = agent_name(i)
                body = {
                    "name": name,
                    "workspaces": [{"name": "ws", "path": f"/bench/{name}"}],
                    "platform": "bench",
                }
                auth = {"Authorization": f"Bearer {keys[i]}"}
                async with gate:
                    answer = await plain.post(f"{API}/agent/register", json=body, headers=auth)
                    check(answer, f"register {name}")

            await asyncio.gather(*(register(i) for i in range(agents)))
        return user_key, keys

    async def _settle(self, sent: list[Sent]) -> None:
        """Wait until every mail sent so far has arrived on SSE (or the timeout)."""
        self.sent += sent
        expected = sum(1 for s in self.sent if s.status == 200)
        if not await self.deliveries.wait_for(expected, self.args.deliver_timeout):
            self.problems.append(
                f"timed out after {self.args.deliver_timeout:.0f}s waiting for SSE deliveries "
                f"({self.deliveries.count} of {expected})"
            )

    async def warm_up(self, items: list[tuple[int, bytes]]) -> None:
        assert self.senders is not None
        await self._settle(await send_all(self.senders, self.path, items))

    async def idle(self) -> list[float]:
        assert self.senders is not None
        return await idle_round_trips(self.senders[0], f"{API}/health")

    async def round(self, items: list[tuple[int, bytes]]) -> Load:
        assert self.senders is not None
        return await timed_load(self.senders, self.path, items, self.server, self._settle)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await asyncio.sleep(self.args.grace)  # a late duplicate would show up here
        for reader in self._readers:
            reader.cancel()
        for reader in self._readers:
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reader
        if self._sse is not None:
            await self._sse.aclose()
        if self.senders is not None:
            await self.senders.aclose()

    def verify(self) -> list[str]:
        """Every mail exactly once, on exactly its recipient's stream; nothing unknown."""
        agents = self.args.agents
        problems = [
            f"mail {s.index}: HTTP {s.status} {s.result}" for s in self.sent if s.status != 200
        ]
        expected = {s.mail_id: s.index % agents for s in self.sent if s.status == 200}
        seen = self.deliveries.seen
        missing = [m for m in expected if m not in seen]
        if missing:
            problems.append(f"{len(missing)} mails never arrived on SSE (e.g. {missing[0]})")
        for mail_id, arrivals in seen.items():
            if mail_id not in expected:
                problems.append(f"unexpected new_mail {mail_id} on {agent_name(arrivals[0][0])}")
                continue
            if len(arrivals) != 1:
                problems.append(f"mail {mail_id} arrived {len(arrivals)} times")
            wrong = {agent_name(a) for a, _, _ in arrivals if a != expected[mail_id]}
            if wrong:
                problems.append(
                    f"mail {mail_id} for {agent_name(expected[mail_id])} "
                    f"arrived on {', '.join(sorted(wrong))}"
                )
        problems = self.problems + problems
        if len(problems) > 12:
            problems = [*problems[:12], f"... and {len(problems) - 12} more"]
        return problems


class HelloTarget:
    """The baseline: the same requests to a hello-world `POST /echo`."""

    path = "/echo"

    def __init__(self, args: argparse.Namespace, server: Child) -> None:
        self.args = args
        self.server = server
        self.senders = Senders(
            server.base_url, args.senders, "not-checked", shared=args.shared_client
        )

    async def warm_up(self, items: list[tuple[int, bytes]]) -> None:
        await send_all(self.senders, self.path, items)

    async def idle(self) -> list[float]:
        return await idle_round_trips(self.senders[0], "/health")

    async def round(self, items: list[tuple[int, bytes]]) -> Load:
        return await timed_load(self.senders, self.path, items, self.server)

    async def close(self) -> None:
        await self.senders.aclose()

"""`agentmail serve --workers N`: several processes on the same ports.

On PostgreSQL a supervisor binds the listeners and starts the workers, which
inherit them (gateway/workers.py): both answer on the one port, an event
committed through either reaches streams held by both, `/metrics` counts for
the group, READY=1 comes once for all of them, a killed worker is started again
while the other serves, and SIGTERM stops the group with STOPPING=1 and exit 0.
On SQLite the gateway runs one process and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bridges.client.transport import tls_context
from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, ok
from tests.support.serve_process import ServedGateway, serve, serve_env
from tests.support.sse import SseStream, open_stream


def _workers_of(pid: int) -> set[int]:
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children |= {int(c) for c in (task / "children").read_text().split()}
    return children


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


async def _datagram(sock: socket.socket) -> list[str]:
    loop = asyncio.get_running_loop()
    data = await asyncio.wait_for(loop.sock_recv(sock, 4096), 60)
    return data.decode().splitlines()


async def _answered_by(client: httpx.AsyncClient) -> str:
    """Which worker serves this client's connection (`/readyz` says, on keep-alive)."""
    return _worker_of(await client.get("/readyz"))


def _worker_of(answer: httpx.Response) -> str:
    assert answer.status_code == 200, answer.text
    worker: str = answer.json()["worker"]
    return worker


async def _on_a_new_connection(api: Api, path: str) -> httpx.Response:
    """`path` asked on a connection of its own, closed after: whichever worker accepts
    it answers, and a polling loop holds no connection open against the per-address cap."""
    async with httpx.AsyncClient(base_url=api.base_url, verify=tls_context()) as client:
        return await client.get(path)


async def _workers_answering(api: Api, connections: int) -> set[str]:
    """The workers that accepted `connections` new connections, each closed after."""
    return {_worker_of(await _on_a_new_connection(api, "/readyz")) for _ in range(connections)}


@contextlib.asynccontextmanager
async def _stream_on_each_worker(api: Api, token: str) -> AsyncIterator[list[SseStream]]:
    """An SSE stream held by each of the two workers: new connections until both have one."""
    held: dict[str, httpx.AsyncClient] = {}
    for _ in range(200):
        client = api.client(token)
        held.setdefault(await _answered_by(client), client)
        if len(held) == 2:
            break
    assert sorted(held) == ["1/2", "2/2"]
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(open_stream(c)) for c in held.values()]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_two_workers_serve_one_port_share_events_and_stop_together(
    database_url: str, tmp_path: Path
) -> None:
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(tmp_path / "notify.sock"))
    receiver.setblocking(False)
    env = serve_env(database_url, tmp_path / "data")
    env.update(NOTIFY_SOCKET=str(tmp_path / "notify.sock"), AGENTMAIL_DATABASE_CONNECTIONS="8")
    served = await serve(env, "--workers", "2", log=tmp_path / "serve.log")
    api = Api(served)  # type: ignore[arg-type]
    try:
        ready = await _datagram(receiver)
        assert "READY=1" in ready and f"MAINPID={served.process.pid}" in ready, ready
        workers = _workers_of(served.process.pid)
        assert len(workers) == 2

        await api.human("jianf")
        builder = await api.agent("builder")
        token = builder.headers["Authorization"].removeprefix("Bearer ")
        human = await api.login("jianf", "password123")
        sent = []
        async with _stream_on_each_worker(api, token) as streams:
            for n in range(4):  # each on a new connection: whichever worker accepts it
                client = api.client(await api.user_key(human))
                answer = await client.post(
                    "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": f"{n}"}
                )
                sent.append(ok(answer)["mail_id"])
            for stream in streams:
                got = [(await stream.next_of("new_mail")).json["mail_id"] for _ in sent]
                assert got == sent
                assert await stream.nothing_within(0.5)

        # The counters of the group, whichever worker is scraped.
        text = (await api.client().get("/metrics")).text
        accepted = re.search(
            r'^agentmail_mails_accepted_total\{entrance="rest"\} (\S+)$', text, re.M
        )
        assert accepted is not None and float(accepted.group(1)) == len(sent), text[:2000]

        # A worker killed is started again on the same sockets; the other serves meanwhile.
        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        async with asyncio.timeout(60):
            while len(now := _workers_of(served.process.pid)) < 2 or killed in now:
                assert (await _on_a_new_connection(api, "/healthz")).status_code == 200
                await asyncio.sleep(0.2)
            while await _workers_answering(api, 20) != {"1/2", "2/2"}:
                await asyncio.sleep(0.2)
        ok(await builder.post(AGENT_SEND, json={"to": "jianf@", "subject": "still here"}))
        assert await _datagram_or_none(receiver) is None  # no second READY=1

        assert await served.stop() == 0
        assert "STOPPING=1" in await _datagram(receiver)
        assert not any(_alive(pid) for pid in now)
    finally:
        await api.close()
        await served.kill()
        receiver.close()


async def _datagram_or_none(sock: socket.socket) -> str | None:
    with contextlib.suppress(TimeoutError):
        return " ".join(await asyncio.wait_for(_datagram(sock), 0.2))
    return None


async def test_workers_on_sqlite_are_one_process_and_it_says_so(tmp_path: Path) -> None:
    env = serve_env(f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "data")
    served: ServedGateway = await serve(env, "--workers", "3", log=tmp_path / "serve.log")
    try:
        assert _workers_of(served.process.pid) == set()
        async with httpx.AsyncClient(base_url=served.base_url) as client:
            ready = (await client.get("/readyz")).json()
        assert ready["status"] == "ready" and "worker" not in ready
    finally:
        assert await served.stop() == 0
    said = " ".join((tmp_path / "serve.log").read_text().split())
    assert "3 workers need PostgreSQL" in said and "runs as one process" in said

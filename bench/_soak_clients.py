"""`soak.py`'s clients: the accounts, the listeners (SSE, IMAP IDLE) and the steady
senders and readers, each noting its latencies and errors in one `Tally`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from typing import Any

import aioimaplib
import aiosmtplib
import httpx
from _load import API, body_text
from _targets import check

PASSWORD = "soak-password-1"
DOMAIN = "agentmail.localhost"


@dataclass
class Tally:
    """Latencies (seconds) and errors by kind, since the last `take`."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    last_error: dict[str, str] = field(default_factory=dict)

    def ok(self, kind: str, seconds: float) -> None:
        self.latencies[kind].append(seconds)

    def failed(self, kind: str, why: str) -> None:
        self.errors[kind] += 1
        self.last_error[kind] = why[:200]

    def take(self) -> Tally:
        taken = Tally(self.latencies, self.errors, dict(self.last_error))
        self.latencies, self.errors = defaultdict(list), defaultdict(int)
        return taken


@dataclass
class World:
    humans: list[str]
    user_keys: list[str]
    agents: list[str]
    agent_keys: list[str]


async def build_world(base: str, admin_password: str, humans: int, agents: int) -> World:
    """Humans (password, user key), agents (registered), and for each agent a conversation
    opened by its human with an unlimited budget, so the agent may answer forever."""
    origin = {"Origin": base}
    gate = asyncio.Semaphore(8)
    names = [f"h{i:02d}" for i in range(humans)]
    agent_names = [f"a{i:03d}" for i in range(agents)]
    async with httpx.AsyncClient(base_url=base, headers=origin, timeout=60) as admin:
        login = {"username": "admin", "password": admin_password}
        check(await admin.post(f"{API}/auth/login", json=login), "admin login")

        async def human(name: str) -> str:
            async with gate:
                body = {"name": name, "password": PASSWORD, "is_admin": False}
                check(await admin.post(f"{API}/admin/users", json=body), "user", 201)
                async with httpx.AsyncClient(base_url=base, headers=origin, timeout=60) as h:
                    check(
                        await h.post(
                            f"{API}/auth/login", json={"username": name, "password": PASSWORD}
                        ),
                        "login",
                    )
                    answer = await h.post(f"{API}/me/keys", json={"lifecycle": "permanent"})
                    return str(check(answer, "user key", 201)["key"])

        async def agent(name: str) -> str:
            async with gate:
                answer = await admin.post(
                    f"{API}/admin/agent-keys", json={"lifecycle": "permanent"}
                )
                key = str(check(answer, "agent key", 201)["key"])
                body = {
                    "name": name,
                    "workspaces": [{"name": "ws", "path": f"/soak/{name}"}],
                    "platform": "soak",
                }
                auth = {"Authorization": f"Bearer {key}"}
                check(
                    await admin.post(f"{API}/agent/register", json=body, headers=auth), "register"
                )
                return key

        user_keys = list(await asyncio.gather(*(human(n) for n in names)))
        agent_keys = list(await asyncio.gather(*(agent(n) for n in agent_names)))
    world = World(names, user_keys, agent_names, agent_keys)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def opened(j: int) -> None:
            async with gate:
                body = {
                    "to": f"{agent_names[j]}@ws",
                    "subject": f"soak {j}",
                    "session_alias": f"soak-{j}",
                    "budget": "unlimited",
                }
                auth = {"Authorization": f"Bearer {user_keys[j % humans]}"}
                check(await http.post(f"{API}/me/mail/send", json=body, headers=auth), "open")

        await asyncio.gather(*(opened(j) for j in range(agents)))
    return world


async def sse_listener(base: str, key: str, tally: Tally, stop: asyncio.Event) -> None:
    """One SSE stream, reconnecting with Last-Event-ID; notes commit → arrival of new mail."""
    last: str | None = None
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(30, read=None)) as client:
        while not stop.is_set():
            headers = {"Authorization": f"Bearer {key}"}
            if last is not None:
                headers["Last-Event-ID"] = last
            try:
                last = await _stream(client, headers, tally, last)
            except (httpx.HTTPError, OSError) as error:
                if not stop.is_set():
                    tally.failed("sse", repr(error))
                    await asyncio.sleep(1)


async def _stream(
    client: httpx.AsyncClient, headers: dict[str, str], tally: Tally, last: str | None
) -> str | None:
    """Read one stream until it ends; the last event id seen."""
    async with client.stream("GET", f"{API}/events/stream", headers=headers) as response:
        if response.status_code != 200:
            tally.failed("sse", f"HTTP {response.status_code}")
            await asyncio.sleep(1)
            return last
        event, data = "message", []
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                last = line[3:].strip()
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif not line:
                if event == "new_mail" and data:
                    stamp = datetime.fromisoformat(json.loads("".join(data))["created_at"])
                    tally.ok("delivery", time.time() - stamp.timestamp())
                event, data = "message", []
    return last


async def _pushes(client: aioimaplib.IMAP4, tally: Tally, stop: asyncio.Event) -> None:
    while client.has_pending_idle() and not stop.is_set():
        pushed = await client.wait_server_push(timeout=30)
        lines = pushed if isinstance(pushed, list) else []
        if any(b"EXISTS" in (p if isinstance(p, bytes) else p.encode()) for p in lines):
            tally.ok("idle push", 0.0)


async def idle_listener(port: int, name: str, tally: Tally, stop: asyncio.Event) -> None:
    """IMAP IDLE on INBOX; every 30 s out of IDLE to FETCH the newest message, then back."""
    while not stop.is_set():
        client = aioimaplib.IMAP4("127.0.0.1", port, timeout=60)
        try:
            await client.wait_hello_from_server()
            await client.login(name, PASSWORD)
            await client.select("INBOX")
            while not stop.is_set():
                idle = await client.idle_start(timeout=60)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(25):
                        await _pushes(client, tally, stop)
                client.idle_done()
                await asyncio.wait_for(idle, 30)
                started = time.perf_counter()
                fetched = await client.fetch("*", "(BODY.PEEK[] FLAGS)")
                if fetched.result != "OK":
                    tally.failed("imap fetch", str(fetched.lines[-1:]))
                else:
                    tally.ok("imap fetch", time.perf_counter() - started)
        except Exception as error:  # every failure is counted; none ends the listener
            if not stop.is_set():
                tally.failed("imap", repr(error))
                await asyncio.sleep(1)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.logout(), 5)


async def steady(rate: float, stop: asyncio.Event, job: Callable[[int], Awaitable[None]]) -> None:
    """Start `job(n)` `rate` times a second (open loop: a slow server gets a queue, as in life)."""
    running: set[asyncio.Task[None]] = set()
    n = 0
    started = time.perf_counter()
    while not stop.is_set():
        n += 1
        task = asyncio.create_task(job(n))
        running.add(task)
        task.add_done_callback(running.discard)
        await asyncio.sleep(max(0.0, started + n / rate - time.perf_counter()))
    await asyncio.gather(*running, return_exceptions=True)


def rest_sender(
    client: httpx.AsyncClient, world: World, tally: Tally, body_bytes: int
) -> Callable[[int], Awaitable[None]]:
    """Half the mails from a human to an agent, half an agent's answer into its conversation."""

    async def send(n: int) -> None:
        j = random.randrange(len(world.agents))
        if n % 2:
            key, path = world.user_keys[j % len(world.humans)], f"{API}/me/mail/send"
            body: dict[str, Any] = {"to": f"{world.agents[j]}@ws.soak-{j}", "subject": f"rest {n}"}
        else:
            key, path = world.agent_keys[j], f"{API}/mail/send"
            body = {
                "to": f"{world.humans[j % len(world.humans)]}@.soak-{j}",
                "subject": f"answer {n}",
            }
        body["body"] = body_text(body_bytes)
        started = time.perf_counter()
        try:
            answer = await client.post(path, json=body, headers={"Authorization": f"Bearer {key}"})
        except httpx.HTTPError as error:
            tally.failed("rest send", repr(error))
            return
        if answer.status_code == 200:
            tally.ok("rest send", time.perf_counter() - started)
        else:
            tally.failed("rest send", f"{answer.status_code} {answer.text[:150]}")

    return send


def smtp_sender(
    port: int, world: World, tally: Tally, body_bytes: int
) -> Callable[[int], Awaitable[None]]:
    async def send(n: int) -> None:
        j = random.randrange(len(world.agents))
        human = world.humans[j % len(world.humans)]
        mail = EmailMessage()
        mail["From"], mail["To"] = f"{human}@{DOMAIN}", f"{world.agents[j]}+ws+soak-{j}@{DOMAIN}"
        mail["Subject"] = f"smtp {n}"
        mail.set_content(body_text(body_bytes))
        started = time.perf_counter()
        try:
            client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, start_tls=False, timeout=60)
            async with client:
                await client.login(human, PASSWORD)
                await client.send_message(mail)
        except (aiosmtplib.SMTPException, OSError) as error:
            tally.failed("smtp send", repr(error))
            return
        tally.ok("smtp send", time.perf_counter() - started)

    return send


def reader(
    client: httpx.AsyncClient, world: World, tally: Tally
) -> Callable[[int], Awaitable[None]]:
    """A human lists their inbox and opens its newest mail (the web UI's first two calls)."""

    async def read(n: int) -> None:
        auth = {"Authorization": f"Bearer {world.user_keys[n % len(world.humans)]}"}
        started = time.perf_counter()
        try:
            inbox = await client.get(
                f"{API}/me/mail/inbox", params={"limit": 20, "status": "all"}, headers=auth
            )
            mails = inbox.json().get("mails", []) if inbox.status_code == 200 else None
            if mails is None:
                tally.failed("read", f"inbox {inbox.status_code}")
                return
            if mails:
                one = await client.get(f"{API}/me/mail/{mails[0]['mail_id']}", headers=auth)
                if one.status_code != 200:
                    tally.failed("read", f"mail {one.status_code}")
                    return
        except httpx.HTTPError as error:
            tally.failed("read", repr(error))
            return
        tally.ok("read", time.perf_counter() - started)

    return read

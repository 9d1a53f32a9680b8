"""SIGTERM during a stream of SMTP sends loses nothing acknowledged.

`agentmail serve` runs in a child process; SMTP clients send in loops, an agent
reads its SSE stream and a human sits in IMAP. On SIGTERM the gateway stops
accepting, lets each message in DATA finish (answered 250, or 421 before DATA),
ends SSE with a `retry:` hint and IMAP with `BYE`, and exits 0. After a restart
every acknowledged mail is stored, and the agent's stream, resumed with
`Last-Event-ID`, has a `new_mail` for each of them: nothing missed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import signal
import sys
from pathlib import Path

import aiosmtplib
import httpx
from sqlalchemy import select

from core.store.engine import Store
from core.store.engine import database_url as store_url
from core.store.models import Mail
from tests.support.serve_process import ADMIN_PASSWORD, read_banner, serve, serve_env

D = "agentmail.localhost"
CLIENTS = 6
SIGTERM_AFTER = 20  # acknowledged messages before the signal


async def _serve(env: dict[str, str]) -> tuple[asyncio.subprocess.Process, dict[str, int]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "gateway", "serve", env=env, stdout=asyncio.subprocess.PIPE
    )
    text = await read_banner(process, "stop with")
    ports = {}
    for name, pattern in (("http", r"http://127\.0\.0\.1:"), ("smtp", "SMTP"), ("imap", "IMAP")):
        found = re.search(rf"{pattern}\s*(?:127\.0\.0\.1:)?(\d+)", text)
        assert found, text
        ports[name] = int(found.group(1))
    return process, ports


async def _accounts(base: str) -> str:
    """jianf (a human) and builder (an agent); returns the agent's key."""
    async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as http:
        login = {"username": "admin", "password": "admin-password"}
        assert (await http.post("/api/v1/auth/login", json=login)).status_code == 200
        user = {"name": "jianf", "password": "password123", "is_admin": False}
        assert (await http.post("/api/v1/admin/users", json=user)).status_code == 201
        key: str = (
            await http.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})
        ).json()["key"]
        registered = await http.post(
            "/api/v1/agent/register",
            json={"name": "builder", "workspaces": [{"name": "ws", "path": "/w"}], "platform": "t"},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert registered.status_code == 200, registered.text
    return key


def _message(subject: str) -> bytes:
    body = "a line of a message sent while the gateway is asked to stop\r\n" * 20
    return f"From: jianf@{D}\r\nTo: builder+ws@{D}\r\nSubject: {subject}\r\n\r\n{body}".encode()


async def _sse_lines(base: str, key: str, lines: list[str], connected: asyncio.Event) -> None:
    """The agent's stream, line by line, until the gateway ends it."""
    headers = {"Authorization": f"Bearer {key}"}
    timeout = httpx.Timeout(10.0, read=None)
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=timeout) as http,
        http.stream("GET", "/api/v1/events/stream") as response,
    ):
        assert response.status_code == 200
        async for line in response.aiter_lines():
            lines.append(line)
            if line.startswith(": connected"):
                connected.set()


def _new_mail_subjects(lines: list[str]) -> tuple[set[str], str | None]:
    """Subjects of the new_mail events in these SSE lines, and the last event id."""
    subjects, last_id, event = set(), None, ""
    for line in lines:
        if line.startswith("id:"):
            last_id = line[3:].strip()
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "new_mail":
            subjects.add(json.loads(line[5:])["subject"])
    return subjects, last_id


async def _imap_session(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await reader.readline()  # the greeting
    writer.write(b"a1 LOGIN jianf password123\r\n")
    async with asyncio.timeout(10):
        while not (await reader.readline()).startswith(b"a1 OK"):
            pass
    return reader, writer


async def test_sigterm_loses_no_acknowledged_mail(database_url: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    env.update(
        {
            "DATABASE_URL": database_url,
            "AGENTMAIL_DATA_DIR": str(tmp_path / "data"),
            "AGENTMAIL_HTTP_PORT": "0",
            "AGENTMAIL_SMTP_PORT": "0",
            "AGENTMAIL_IMAP_PORT": "0",
            "AGENTMAIL_BCRYPT_ROUNDS": "4",
            "ADMIN_PASSWORD": "admin-password",
        }
    )
    process, ports = await _serve(env)
    acknowledged: set[str] = set()
    attempted: set[str] = set()
    refused: list[str] = []
    enough = asyncio.Event()
    try:
        base = f"http://127.0.0.1:{ports['http']}"
        key = await _accounts(base)
        lines: list[str] = []
        connected = asyncio.Event()
        sse = asyncio.create_task(_sse_lines(base, key, lines, connected))
        await asyncio.wait_for(connected.wait(), 10)
        imap_reader, imap_writer = await _imap_session(ports["imap"])

        async def client(number: int) -> None:
            smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=ports["smtp"], timeout=20)
            await smtp.connect()
            await smtp.login("jianf", "password123")
            index = 0
            while True:
                subject = f"graceful {number}-{index}"
                index += 1
                attempted.add(subject)
                try:
                    await smtp.sendmail(f"jianf@{D}", [f"builder+ws@{D}"], _message(subject))
                except aiosmtplib.SMTPResponseException as error:
                    refused.append(f"{error.code} {error.message}")
                    return
                except aiosmtplib.SMTPRecipientsRefused as error:  # the 421 came at RCPT
                    refused.extend(f"{e.code} {e.message}" for e in error.recipients)
                    return
                except (aiosmtplib.SMTPServerDisconnected, ConnectionError):
                    return
                acknowledged.add(subject)
                if len(acknowledged) >= SIGTERM_AFTER:
                    enough.set()

        clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
        await asyncio.wait_for(enough.wait(), 90)
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 60) == 0
        await asyncio.gather(*clients)
        await asyncio.wait_for(sse, 10)
        goodbye = await asyncio.wait_for(imap_reader.read(), 10)
        imap_writer.close()
        await imap_writer.wait_closed()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert len(acknowledged) >= SIGTERM_AFTER
    assert all(reply.startswith("421") for reply in refused), refused
    assert b"* BYE" in goodbye, goodbye
    assert "retry: 2000" in lines, lines[-5:]
    seen, last_id = _new_mail_subjects(lines)
    assert last_id is not None

    process, ports = await _serve(env)  # restarted on the same data
    try:
        store = Store(store_url(database_url, tmp_path / "data" / "agentmail.db"))
        try:
            stored = set(await store.read(lambda s: list(s.scalars(select(Mail.subject)))))
        finally:
            await store.close()
        assert acknowledged <= stored, sorted(acknowledged - stored)
        assert stored <= attempted
        # The agent comes back with Last-Event-ID: it gets what it had not seen yet.
        base = f"http://127.0.0.1:{ports['http']}"
        headers = {"Authorization": f"Bearer {key}", "Last-Event-ID": last_id}
        async with httpx.AsyncClient(base_url=base, headers=headers) as http:
            replay: list[str] = []
            async with http.stream("GET", "/api/v1/events/stream") as response:
                async with asyncio.timeout(20):
                    async for line in response.aiter_lines():
                        replay.append(line)
                        if acknowledged <= seen | _new_mail_subjects(replay)[0]:
                            break
        assert acknowledged <= seen | _new_mail_subjects(replay)[0]
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 60)


async def _reply(reader: asyncio.StreamReader) -> str:
    """One SMTP reply, its lines joined (RFC 5321 §4.2: `250-` continues, `250 ` ends)."""
    lines = []
    async with asyncio.timeout(20):
        while True:
            line = (await reader.readline()).decode()
            assert line, f"connection closed after {lines}"
            lines.append(line.rstrip("\r\n"))
            if line[3:4] != "-":
                return "\n".join(lines)


async def _refuses_connections(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return True
    writer.close()
    await writer.wait_closed()
    return False


async def test_a_message_in_data_is_finished_and_answered(tmp_path: Path) -> None:
    """SIGTERM while a client is halfway through DATA: the rest is taken, stored and
    answered 250, and only then does the session get 421 and close."""
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    env.update(
        {
            "DATABASE_URL": database,
            "AGENTMAIL_DATA_DIR": str(tmp_path / "data"),
            "AGENTMAIL_HTTP_PORT": "0",
            "AGENTMAIL_SMTP_PORT": "0",
            "AGENTMAIL_IMAP_PORT": "0",
            "AGENTMAIL_BCRYPT_ROUNDS": "4",
            "ADMIN_PASSWORD": "admin-password",
        }
    )
    process, ports = await _serve(env)
    try:
        await _accounts(f"http://127.0.0.1:{ports['http']}")
        reader, writer = await asyncio.open_connection("127.0.0.1", ports["smtp"])
        assert (await _reply(reader)).startswith("220")
        credentials = base64.b64encode(b"\0jianf\0password123").decode()
        for command, expected in (
            ("EHLO client.example", "250"),
            (f"AUTH PLAIN {credentials}", "235"),
            (f"MAIL FROM:<jianf@{D}>", "250"),
            (f"RCPT TO:<builder+ws@{D}>", "250"),
            ("DATA", "354"),
        ):
            writer.write(f"{command}\r\n".encode())
            assert (await _reply(reader)).startswith(expected), command
        head, tail = _message("in flight").split(b"\r\n\r\n", 1)
        writer.write(head + b"\r\n\r\n")
        await writer.drain()
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):  # the listener closes first: then we go on
            while not await _refuses_connections(ports["smtp"]):
                await asyncio.sleep(0.05)
        writer.write(tail + b"\r\n.\r\n")
        await writer.drain()
        assert (await _reply(reader)).startswith("250 2.0.0")
        assert (await _reply(reader)).startswith("421 4.3.2")
        assert await asyncio.wait_for(reader.read(), 10) == b""
        writer.close()
        await writer.wait_closed()
        assert await asyncio.wait_for(process.wait(), 60) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    store = Store(store_url(database, tmp_path / "unused.db"))
    try:
        subjects = await store.read(lambda s: list(s.scalars(select(Mail.subject))))
    finally:
        await store.close()
    assert subjects == ["in flight"]


async def test_a_trickling_upload_is_cut_after_the_grace_period_with_503(tmp_path: Path) -> None:
    """A body still trickling in when the grace period (2 s here) is over: the request is
    cut, answered 503 with Retry-After (not 500), the log says what was cut, and the
    process exits. (Not about storage: SQLite only.)"""
    env = serve_env(f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "data")
    env["AGENTMAIL_SHUTDOWN_GRACE_SECONDS"] = "2"
    log = tmp_path / "serve.log"
    served = await serve(env, log=log)
    try:
        base = served.base_url
        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as http:
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            assert (await http.post("/api/v1/auth/login", json=login)).status_code == 200
            key = (await http.post("/api/v1/me/keys", json={})).json()["key"]
        reader, writer = await asyncio.open_connection("127.0.0.1", served.http_port)
        head = (
            "POST /api/v1/me/attachments HTTP/1.1\r\nHost: gateway\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: multipart/form-data; boundary=B\r\n"
            "Content-Length: 100000\r\n\r\n--B\r\n"
            'Content-Disposition: form-data; name="file"; filename="slow.txt"\r\n\r\n'
        )
        writer.write(head.encode())

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                while True:
                    writer.write(b"x")
                    await writer.drain()
                    await asyncio.sleep(0.2)

        trickling = asyncio.create_task(trickle())
        await asyncio.sleep(0.5)  # the upload is under way
        served.process.send_signal(signal.SIGTERM)
        answer = b""
        async with asyncio.timeout(30):  # until the server closes (or resets: we still send)
            with contextlib.suppress(ConnectionError):
                while chunk := await reader.read(65536):
                    answer += chunk
        trickling.cancel()
        writer.close()
        # The grace period is 2 s: the exit comes long before this (a margin for load).
        assert await asyncio.wait_for(served.process.wait(), 30) == 0
    finally:
        await served.kill()
    await served.logged()
    head_lines = answer.split(b"\r\n\r\n", 1)[0].decode().lower().splitlines()
    assert head_lines[0] == "http/1.1 503 service unavailable", answer
    assert "retry-after: 5" in head_lines, answer
    assert b'"shutting_down"' in answer, answer
    said = log.read_text()
    assert "cut POST /api/v1/me/attachments (answered 503)" in said, said[-2000:]

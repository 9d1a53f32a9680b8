"""Security issue, hole 16: no secret in what the gateway writes, and keys a client
made itself are registered by their SHA-256 only.

A real `agentmail serve` runs as `make run` would under a service manager
(stdout and stderr are no terminal: they go to a log); the test logs in,
fails logins, issues keys, authenticates over SMTP and IMAP, and then reads
everything the process wrote for every secret it handled — as issued and in the
encodings the protocols carry them (base64 for SMTP AUTH, SHA-256 for keys).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import imaplib
import json
import re
import secrets
import signal
import smtplib
import sys
from pathlib import Path

import httpx
import pytest

from tests.integration.test_cli import _env
from tests.support.gateway import Api
from tests.support.http import refused

AGENTMAIL = [sys.executable, "-m", "gateway"]


async def serve(
    tmp_path: Path, **settings: str
) -> tuple[asyncio.subprocess.Process, str, asyncio.Task[bytes]]:
    """The gateway on free ports; returns it, what it wrote until ready (its banner: on
    stdout, or with the log records on stderr under JSON), and the task reading the rest
    of stderr."""
    ports = {f"AGENTMAIL_{name}_PORT": "0" for name in ("HTTP", "SMTP", "IMAP")}
    env = _env(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "data", **ports, **settings)
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL,
        "serve",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    banner = process.stderr if settings.get("AGENTMAIL_LOG_FORMAT") == "json" else process.stdout
    text = b""
    async with asyncio.timeout(30):
        while b"stop with" not in text:
            line = await banner.readline()
            assert line, text
            text += line
    errors = asyncio.create_task(process.stderr.read())
    return process, text.decode(), errors


def encodings(secret: str) -> list[str]:
    raw = secret.encode()
    return [secret, base64.b64encode(raw).decode(), hashlib.sha256(raw).hexdigest()]


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_the_gateway_writes_no_secret(tmp_path: Path, log_format: str) -> None:
    """At the most talkative level, in both formats (AGENTMAIL_LOG_FORMAT)."""
    settings = {"AGENTMAIL_LOG_FORMAT": log_format, "AGENTMAIL_LOG_LEVEL": "debug"}
    process, started, errors = await serve(tmp_path, **settings)
    seen: list[str] = []  # every secret the test handled
    try:
        http_port = re.search(r"http://127\.0\.0\.1:(\d+)/", started)
        smtp_port = re.search(r"SMTP\s+127\.0\.0\.1:(\d+)", started)
        imap_port = re.search(r"IMAP\s+127\.0\.0\.1:(\d+)", started)
        where = re.search(r"with the password in (\S+)", started)
        assert http_port and smtp_port and imap_port and where, started
        admin_password = Path(where.group(1)).read_text().strip()  # noqa: ASYNC240
        base = f"http://127.0.0.1:{http_port.group(1)}"
        user_password = "jianf-" + secrets.token_urlsafe(12)
        wrong = "wrong-" + secrets.token_urlsafe(12)
        seen += [admin_password, user_password, wrong]

        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as admin:
            login = {"username": "admin", "password": admin_password}
            assert (await admin.post("/api/v1/auth/login", json=login)).status_code == 200
            seen.append(admin.cookies["agentmail_session"])
            user = {"name": "jianf", "password": user_password}
            assert (await admin.post("/api/v1/admin/users", json=user)).status_code == 201
            agent_key = (await admin.post("/api/v1/admin/agent-keys", json={})).json()["key"]
            enrolment = await admin.post("/api/v1/admin/agent-keys", json={"lifecycle": "one_time"})
            client_key = "bridge-" + secrets.token_urlsafe(32)
            by_digest = {"key_sha256": hashlib.sha256(client_key.encode()).hexdigest()}
            assert (await admin.post("/api/v1/admin/agent-keys", json=by_digest)).status_code == 201
            seen += [agent_key, enrolment.json()["key"], client_key]
            # Failed logins, with the password in the body, and a reset with a short one.
            for attempt in ({"username": "jianf", "password": wrong}, {"username": wrong}):
                answer = await admin.post("/api/v1/auth/login", json=attempt)
                assert answer.status_code in (401, 422)
            reset = await admin.post("/api/v1/admin/users/jianf/password", json={"new_password": 1})
            assert reset.status_code == 422

        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as human:
            login = {"username": "jianf", "password": user_password}
            assert (await human.post("/api/v1/auth/login", json=login)).status_code == 200
            seen.append(human.cookies["agentmail_session"])
            user_key = (await human.post("/api/v1/me/keys", json={})).json()["key"]
            seen.append(user_key)
            change = {"current_password": wrong, "new_password": "new-" + wrong}
            assert (await human.post("/api/v1/me/password", json=change)).status_code == 401
            seen.append("new-" + wrong)
        async with httpx.AsyncClient(base_url=base) as agent:
            enrolled = await agent.post(
                "/api/v1/agent/register",
                json={"name": "builder", "workspaces": [{"name": "ws", "path": "/w"}]},
                headers={"Authorization": f"Bearer {enrolment.json()['key']}"},
            )
            assert enrolled.status_code == 200, enrolled.text
            seen.append(enrolled.json()["agent_key"])
            bad = await agent.get("/api/v1/me", headers={"Authorization": f"Bearer {wrong}"})
            assert bad.status_code == 401

        def mail_protocols() -> None:
            with smtplib.SMTP("127.0.0.1", int(smtp_port.group(1)), timeout=30) as smtp:
                smtp.login("jianf", user_password)
            with smtplib.SMTP("127.0.0.1", int(smtp_port.group(1)), timeout=30) as smtp:
                smtp.login("jianf", user_key)
            with (
                smtplib.SMTP("127.0.0.1", int(smtp_port.group(1)), timeout=30) as smtp,
                pytest.raises(smtplib.SMTPAuthenticationError),
            ):
                smtp.login("jianf", wrong)
            imap = imaplib.IMAP4("127.0.0.1", int(imap_port.group(1)), timeout=30)
            imap.login("jianf", user_password)
            imap.logout()
            imap = imaplib.IMAP4("127.0.0.1", int(imap_port.group(1)), timeout=30)
            with pytest.raises(imaplib.IMAP4.error):
                imap.login("jianf", wrong)
            imap.logout()

        await asyncio.to_thread(mail_protocols)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.stdout is not None
        rest = await asyncio.wait_for(process.stdout.read(), 30)
        await asyncio.wait_for(process.wait(), 30)
    logged = (await errors).decode(errors="replace")
    written = started + rest.decode(errors="replace") + logged
    assert "AgentMail" in written  # the scan reads what the gateway really wrote
    if log_format == "json":
        # Everything it wrote, on stdout and stderr, banner included, is one JSON
        # object a line.
        lines = [json.loads(line) for line in written.splitlines()]
        assert lines, "the gateway logged nothing at debug level"
        assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
        first = next(line for line in lines if line["message"].startswith("AgentMail is"))
        assert first["smtp_port"] == int(smtp_port.group(1)), first
    assert len(seen) == 11
    for secret in seen:
        for form in encodings(secret):
            assert form not in written, f"a secret ({secret[:4]}…) is in the gateway's output"


async def test_a_client_made_key_is_registered_by_its_sha256(api: Api) -> None:
    """The bridges' way: the key never leaves its client; the admin registers its hash."""
    admin = await api.admin()
    key = "amk_" + secrets.token_urlsafe(32)
    digest = hashlib.sha256(key.encode()).hexdigest()
    response = await admin.post("/api/v1/admin/agent-keys", json={"key_sha256": digest})
    assert response.status_code == 201, response.text
    assert response.json()["key"] is None
    agent = api.client(key)
    registered = await agent.post(
        "/api/v1/agent/register",
        json={"name": "builder", "workspaces": [{"name": "ws", "path": "/w"}], "platform": "t"},
    )
    assert registered.status_code == 200, registered.text
    assert (await agent.post("/api/v1/agent/heartbeat")).status_code == 200
    # The same hash twice, a malformed one, and both a key and its hash are refused.
    for body in (
        {"key_sha256": digest},
        {"key_sha256": digest.upper()},
        {"key_sha256": "ab" * 31},
        {"key": key, "key_sha256": digest},
    ):
        response = await admin.post("/api/v1/admin/agent-keys", json=body)
        refused(response, 422, "invalid_request")

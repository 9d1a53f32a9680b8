"""The outside world's scenario for outbound mail's durability (`make test-outside`):
a real `agentmail serve` child process with 50 mails to `mailto:` queued and its
smarthost slow (each message answered after a pause) is killed with SIGKILL while it
delivers, the smarthost holding the reply to a message it took; restarted, every mail arrives
at least once, and the copies of any one mail share its Message-ID (50 distinct ones,
each a stored mail's)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.support.serve_process import ADMIN_PASSWORD, serve, serve_env
from tests.support.smarthost import Smarthost, smarthost

pytestmark = pytest.mark.outside
MAILS = 50
SLOW = 0.3  # seconds the smarthost holds each message before it answers
KILL_AFTER = 10  # messages the smarthost has seen when the gateway is killed


async def _client(base_url: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=base_url, headers={"Origin": base_url}, timeout=30)
    login = await client.post(
        "/api/v1/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
    )
    assert login.status_code == 200, login.text
    return client


async def test_queued_mail_survives_sigkill(database_url: str, tmp_path: Path) -> None:
    recorder = Smarthost(slow=SLOW, hold_from=KILL_AFTER + 1)
    async with smarthost(host=recorder) as probe:
        port = probe.port  # a port that is free while the mails are queued: "down"
    env = serve_env(database_url, tmp_path)
    env.update(
        {
            "AGENTMAIL_SMARTHOST": f"127.0.0.1:{port}",
            "AGENTMAIL_SMARTHOST_TLS": "none",
            "AGENTMAIL_OUTBOUND_RETRY_MINIMUM": "1",
            # A job the killed process held is free again after its lease (15 s here).
            "AGENTMAIL_SMARTHOST_TIMEOUT_SECONDS": "5",
            "AGENTMAIL_SECRET_KEY": "the outside tests' secret key, 32+ characters",
        }
    )
    first = await serve(env, log=tmp_path / "first.log")
    message_ids: set[str] = set()
    try:
        admin = await _client(first.base_url)
        patched = await admin.patch("/api/v1/admin/users/admin", json={"outbound_mail": True})
        assert patched.status_code == 200, patched.text
        for i in range(MAILS):
            sent = await admin.post(
                "/api/v1/me/mail/send",
                json={"to": f"mailto:user{i}@example.com", "subject": f"kill {i}"},
            )
            assert sent.status_code == 200, sent.text
            message_ids.add(sent.json()["message_id"])
        await admin.aclose()
        # The smarthost comes up, slow: killed while one message waits for its reply.
        async with smarthost(port, recorder), asyncio.timeout(120):
            while recorder.tried <= KILL_AFTER:
                recorder.taking.clear()
                await recorder.taking.wait()
            await first.kill()  # the last message is taken, its reply held back
    finally:
        await first.kill()
    assert len(recorder.received) < MAILS  # the kill came mid-way
    recorder.slow, recorder.hold_from = 0.0, None
    recorder.release.set()
    async with smarthost(port, recorder):
        second = await serve(env, log=tmp_path / "second.log")
        try:
            async with asyncio.timeout(120):
                while True:  # cleared before the look: an arrival after it wakes us
                    recorder.arrived.clear()
                    arrived = {r.message_id for r in recorder.received}
                    # Every mail, and the one taken without a reply again, once the
                    # killed process's lease on it ends.
                    if arrived == message_ids and len(recorder.received) > MAILS:
                        break
                    await recorder.arrived.wait()
        finally:
            await second.stop()
    assert len(message_ids) == MAILS
    assert {r.rcpt_tos[0] for r in recorder.received} == {
        f"user{i}@example.com" for i in range(MAILS)
    }
    copies = len(recorder.received) - MAILS
    print(f"{len(recorder.received)} arrivals of {MAILS} mails ({copies} sent again)")
    assert copies >= 1  # the one taken without a reply was sent again, same Message-ID

"""Verified keys and passwords are remembered briefly and forgotten at once.

core/store/credentials.py: a mail client's parallel SMTP and IMAP logins pay bcrypt
once; a password change, a revoked key or a removed user takes effect at the next
attempt, on this replica and (PostgreSQL, by NOTIFY) on every other one.
"""

from __future__ import annotations

import asyncio
import imaplib
from collections.abc import Awaitable
from pathlib import Path

import aiosmtplib
import pytest

from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok
from tests.support.metrics import moved, scrape

NEW_PASSWORD = "another-password-456"
LONG = 300.0  # a cache that outlives the test: only a drop can explain a refusal


async def _smtp_login(port: int, name: str, password: str) -> None:
    """AUTH PLAIN on a new connection; raises when refused."""
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=30)
    await client.connect()
    try:
        await client.login(name, password)
    finally:
        client.close()


def _imap_login(port: int, name: str, password: str) -> None:
    client = imaplib.IMAP4("127.0.0.1", port, timeout=30)
    try:
        client.login(name, password)
    finally:
        client.shutdown()


async def _refused_by_smtp(port: int, name: str, password: str) -> bool:
    try:
        await _smtp_login(port, name, password)
    except aiosmtplib.SMTPAuthenticationError:
        return True
    return False


async def _bcrypt_checks_of(api: Api, *logins: Awaitable[None]) -> float:
    """How many bcrypt checks the gateway ran for these logins, run at once (its own
    count, `agentmail_password_checks_total`: no stopwatch a busy machine can fool)."""
    client = api.client()
    before = await scrape(client)
    await asyncio.gather(*logins)
    return moved(before, await scrape(client), "agentmail_password_checks_total")


async def test_parallel_logins_after_the_first_pay_no_bcrypt(
    database_url: str, tmp_path: Path
) -> None:
    settings = {"credential_cache_seconds": LONG}  # remembered however slow the machine
    async with running_gateway(database_url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")  # which logs her in on the web: now remembered
            smtp, imap = gateway.smtp_port, gateway.imap_port
            checks = await _bcrypt_checks_of(
                api,
                *(_smtp_login(smtp, "jianf", PASSWORD) for _ in range(3)),
                *(asyncio.to_thread(_imap_login, imap, "jianf", PASSWORD) for _ in range(2)),
            )
        finally:
            await api.close()
    assert checks == 0


async def test_parallel_first_logins_pay_bcrypt_once(database_url: str, tmp_path: Path) -> None:
    """Nothing remembered yet (the user never logged in): five sessions that log in at
    the same moment wait for one check (or, if one ends first, find it remembered)."""
    settings = {"credential_cache_seconds": LONG}
    async with running_gateway(database_url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            admin = await api.admin()
            user = {"name": "jianf", "password": PASSWORD}  # and no login of hers yet
            assert (await admin.post("/api/v1/admin/users", json=user)).status_code == 201
            smtp, imap = gateway.smtp_port, gateway.imap_port
            checks = await _bcrypt_checks_of(
                api,
                *(_smtp_login(smtp, "jianf", PASSWORD) for _ in range(3)),
                *(asyncio.to_thread(_imap_login, imap, "jianf", PASSWORD) for _ in range(2)),
            )
        finally:
            await api.close()
    assert checks == 1


async def test_a_changed_password_is_refused_at_once_by_smtp_and_imap(api: Api) -> None:
    human = await api.human("jianf")
    smtp, imap = api.gateway.smtp_port, api.gateway.imap_port
    await _smtp_login(smtp, "jianf", PASSWORD)  # now remembered
    await asyncio.to_thread(_imap_login, imap, "jianf", PASSWORD)
    change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    assert ok(await human.post("/api/v1/me/password", json=change)) == {"status": "changed"}
    assert await _refused_by_smtp(smtp, "jianf", PASSWORD)
    with pytest.raises(imaplib.IMAP4.error):
        await asyncio.to_thread(_imap_login, imap, "jianf", PASSWORD)
    await _smtp_login(smtp, "jianf", NEW_PASSWORD)


async def test_a_revoked_user_key_is_refused_at_once_by_rest_and_smtp(api: Api) -> None:
    human = await api.human("jianf")
    issued = await human.post("/api/v1/me/keys", json={"lifecycle": "permanent"})
    key, key_id = issued.json()["key"], issued.json()["key_id"]
    keyed = api.client(key)
    assert (await keyed.get("/api/v1/me/mail/inbox")).status_code == 200  # remembered
    await _smtp_login(api.gateway.smtp_port, "jianf", key)
    assert (await human.delete(f"/api/v1/me/keys/{key_id}")).status_code in (200, 204)
    assert (await keyed.get("/api/v1/me/mail/inbox")).status_code == 401
    assert await _refused_by_smtp(api.gateway.smtp_port, "jianf", key)


async def test_a_change_on_one_replica_is_seen_on_the_other_at_once(
    backend: str, database_url: str, tmp_path: Path
) -> None:
    if backend != "postgresql":
        pytest.skip("replicas share a PostgreSQL database (NOTIFY); SQLite is one process")
    async with (
        running_gateway(database_url, tmp_path / "a", credential_cache_seconds=LONG) as first,
        running_gateway(database_url, tmp_path / "b", credential_cache_seconds=LONG) as second,
    ):
        here, there = Api(first), Api(second)
        try:
            human = await here.human("jianf")
            key = await here.user_key(human)
            keyed_there = there.client(key)
            assert (await keyed_there.get("/api/v1/me/mail/inbox")).status_code == 200
            await _smtp_login(second.smtp_port, "jianf", PASSWORD)  # remembered there
            change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
            assert ok(await human.post("/api/v1/me/password", json=change))
            keys = (await human.get("/api/v1/me/keys")).json()["keys"]
            for listed in keys:
                await human.delete(f"/api/v1/me/keys/{listed['key_id']}")
            # NOTIFY reaches the other replica asynchronously: wait for it, never 300 s.
            async with asyncio.timeout(10):
                while (await keyed_there.get("/api/v1/me/mail/inbox")).status_code != 401:
                    await asyncio.sleep(0.05)
            assert await _refused_by_smtp(second.smtp_port, "jianf", PASSWORD)
        finally:
            await here.close()
            await there.close()

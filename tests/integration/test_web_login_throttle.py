"""The web login in the one guess budget SMTP and IMAP share: refused per address
(`429` + `Retry-After`), slowed — never refused — per account, and the address is
the real client's: X-Forwarded-For counts only from a trusted proxy.

The throttle lives in memory, so SQLite is enough.
"""

from __future__ import annotations

import asyncio
import smtplib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import ADMIN_PASSWORD, Api, web_gateway
from tests.support.http import refused
from tests.support.metrics import moved, scrape

LOGIN = "/api/v1/auth/login"


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async with web_gateway(tmp_path) as api:
        yield api


async def attempt(
    client: httpx.AsyncClient, name: str, password: str, forwarded: str | None = None
) -> httpx.Response:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return await client.post(LOGIN, json={"username": name, "password": password}, headers=headers)


def assert_throttled(response: httpx.Response) -> None:
    refused(response, 429, "rate_limited")
    assert 1 <= int(response.headers["Retry-After"]) <= 60


async def test_100_wrong_passwords_are_not_checked_at_full_speed(web: Api) -> None:
    """The issue's replay: 100 wrong passwords in a row from one address."""
    client = web.client()
    answers = [(await attempt(client, "admin", f"guess-{i}")).status_code for i in range(100)]
    # Five are checked (per address, within a minute); the other 95 are refused unchecked.
    assert answers[:5] == [401] * 5
    assert answers[5:] == [429] * 95
    assert_throttled(await attempt(client, "admin", "another guess"))
    # Even the right password waits: the attacker cannot tell it apart.
    assert_throttled(await attempt(client, "admin", ADMIN_PASSWORD))


async def test_per_account_from_many_addresses_slows_and_never_refuses(tmp_path: Path) -> None:
    # Behind a trusted proxy each X-Forwarded-For is another client address.
    settings = {"trusted_proxies": "127.0.0.0/8", "login_delay_seconds": 0.01}
    async with web_gateway(tmp_path, **settings) as api:
        admin = await api.admin()
        user = {"name": "jianf", "password": "password123"}
        assert (await admin.post("/api/v1/admin/users", json=user)).status_code == 201
        client = api.client()
        for i in range(10):
            answer = await attempt(client, "admin", "wrong", forwarded=f"203.0.113.{i}")
            assert answer.status_code == 401, answer.text
        # The account has had its 10 failures this minute, whatever the address: the
        # owner's right password waits (the server counts the wait), then logs in.
        before = await scrape(client)
        answer = await attempt(client, "admin", ADMIN_PASSWORD, forwarded="203.0.113.99")
        assert answer.status_code == 200, answer.text
        # Another account is not concerned.
        answer = await attempt(client, "jianf", "password123", forwarded="203.0.113.100")
        assert answer.status_code == 200, answer.text
        after = await scrape(client)
        assert moved(before, after, "agentmail_login_delay_seconds_count", protocol="web") == 1


async def test_a_forged_forwarded_for_from_an_untrusted_peer_is_ignored(web: Api) -> None:
    client = web.client()
    for i in range(5):
        answer = await attempt(client, f"nobody{i}", "wrong", forwarded=f"198.51.100.{i}")
        assert answer.status_code == 401
    # Each request claimed another address, but all came from 127.0.0.1: that one is throttled.
    assert_throttled(await attempt(client, "admin", ADMIN_PASSWORD, forwarded="198.51.100.77"))


async def test_a_trusted_proxy_gives_the_client_address(tmp_path: Path) -> None:
    async with web_gateway(tmp_path, trusted_proxies="127.0.0.1") as api:
        client = api.client()
        for i in range(5):
            answer = await attempt(client, f"nobody{i}", "wrong", forwarded="198.51.100.1")
            assert answer.status_code == 401
        assert_throttled(await attempt(client, "admin", ADMIN_PASSWORD, forwarded="198.51.100.1"))
        # The proxy's other clients are not throttled, nor the proxy itself.
        answer = await attempt(client, "admin", ADMIN_PASSWORD, forwarded="198.51.100.2")
        assert answer.status_code == 200, answer.text
        assert (await attempt(client, "admin", ADMIN_PASSWORD)).status_code == 200


async def test_smtp_failures_count_for_the_web_too(web: Api) -> None:
    """One throttle for every protocol: guessing over SMTP and the web at once is no faster."""
    gateway = web.gateway

    def guess_over_smtp() -> None:
        for _ in range(5):
            with (
                smtplib.SMTP("127.0.0.1", gateway.smtp_port, timeout=30) as smtp,
                pytest.raises(smtplib.SMTPAuthenticationError),
            ):
                smtp.login("someone", "wrong")

    await asyncio.to_thread(guess_over_smtp)
    assert_throttled(await attempt(web.client(), "admin", ADMIN_PASSWORD))

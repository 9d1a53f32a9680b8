"""One guess budget for the web, SMTP and IMAP (docs/security.md, "Logins and sessions").

Per client address, failures of all three count together and refuse that address's
logins unchecked (web 429, SMTP 454 4.7.0, IMAP NO [UNAVAILABLE]); parallel
connections get no more checks than one. Per account, failures slow further password
logins and never refuse them: the owner logs in while an attack on their name runs;
a key login is not slowed. Each client address is a loopback one of its own
(127.0.0.2, 127.0.0.3 …); every delay is read from the server's `/metrics`, never
timed. The throttle lives in memory: one gateway on SQLite serves the whole module
(each test uses its own addresses and names).
"""

from __future__ import annotations

import asyncio
import base64
import itertools
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.metrics import Samples, moved, scrape
from tests.support.raw_lines import RawConnection, raw_connection

pytestmark = pytest.mark.asyncio(loop_scope="module")

PER_ADDRESS = 3
PER_ACCOUNT = 4
LOGIN = "/api/v1/auth/login"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def api(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Api]:
    data = tmp_path_factory.mktemp("budget")
    async with running_gateway(
        f"sqlite:///{data / 'agentmail.db'}",
        data / "data",
        login_failures_per_address=PER_ADDRESS,
        login_failures_per_account=PER_ACCOUNT,
        login_delay_seconds=0.05,
        login_delay_max_seconds=0.2,
    ) as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def imap_login(gateway: Gateway, source: str, name: str, secret: str) -> bytes:
    """The tagged reply to LOGIN from `source`."""
    async with raw_connection(gateway.imap_port, source) as imap:
        assert (await imap.line()).startswith(b"* OK")
        login = b"L LOGIN " + name.encode() + b" " + secret.encode() + b"\r\n"
        return (await imap.imap(b"L", login))[-1]


async def smtp_greeted(smtp: RawConnection) -> None:
    assert (await smtp.smtp_reply())[-1].startswith(b"220")
    assert (await smtp.smtp(b"EHLO client.example\r\n"))[-1].startswith(b"250")


async def smtp_auth(smtp: RawConnection, name: str, secret: str) -> bytes:
    plain = base64.b64encode(b"\0" + name.encode() + b"\0" + secret.encode())
    return (await smtp.smtp(b"AUTH PLAIN " + plain + b"\r\n"))[-1]


async def smtp_login(gateway: Gateway, source: str, name: str, secret: str) -> bytes:
    async with raw_connection(gateway.smtp_port, source) as smtp:
        await smtp_greeted(smtp)
        return await smtp_auth(smtp, name, secret)


async def web_login(gateway: Gateway, source: str, name: str, secret: str) -> httpx.Response:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(
        base_url=gateway.http_url, transport=transport, timeout=30
    ) as client:
        return await client.post(LOGIN, json={"username": name, "password": secret})


def logins(before: Samples, after: Samples, protocol: str, outcome: str) -> float:
    return moved(before, after, "agentmail_logins_total", protocol=protocol, outcome=outcome)


def slowed(before: Samples, after: Samples, protocol: str) -> float:
    return moved(before, after, "agentmail_login_delay_seconds_count", protocol=protocol)


async def test_failures_over_smtp_imap_and_the_web_refuse_the_address_on_all_three(
    api: Api,
) -> None:
    gateway = api.gateway
    await api.human("carol")
    before = await scrape(api.client())
    # One failure by each way in: the address's three.
    assert (await imap_login(gateway, "127.0.0.2", "nobody1", "wrong")).startswith(
        b"L NO [AUTHENTICATIONFAILED]"
    )
    assert (await smtp_login(gateway, "127.0.0.2", "nobody2", "wrong")).startswith(b"535 5.7.8")
    assert (await web_login(gateway, "127.0.0.2", "nobody3", "wrong")).status_code == 401
    # Now every way refuses that address, unchecked: even the right password.
    reply = await imap_login(gateway, "127.0.0.2", "carol", PASSWORD)
    assert reply.startswith(b"L NO [UNAVAILABLE] too many failed logins: try again in "), reply
    assert reply.count(b" s") == 1, reply  # the wait, said once
    reply = await smtp_login(gateway, "127.0.0.2", "carol", PASSWORD)
    assert reply.startswith(b"454 4.7.0"), reply
    refused = await web_login(gateway, "127.0.0.2", "carol", PASSWORD)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # Another address is not concerned.
    assert (await imap_login(gateway, "127.0.0.3", "carol", PASSWORD)).startswith(b"L OK")
    assert (await smtp_login(gateway, "127.0.0.3", "carol", PASSWORD)).startswith(b"235")
    assert (await web_login(gateway, "127.0.0.3", "carol", PASSWORD)).status_code == 200
    after = await scrape(api.client())
    for protocol in ("imap", "smtp", "web"):
        assert logins(before, after, protocol, "refused") == 1, protocol


async def test_parallel_connections_from_one_address_get_no_more_guesses(api: Api) -> None:
    """Guesses sent at once over many connections are checked no more than one by one."""
    gateway = api.gateway
    replies = await asyncio.gather(
        *(imap_login(gateway, "127.0.0.4", "nobody", f"guess-{n}") for n in range(12)),
        *(smtp_login(gateway, "127.0.0.4", "nobody", f"guess-{n}") for n in range(8)),
    )
    checked = [r for r in replies if b"AUTHENTICATIONFAILED" in r or r.startswith(b"535")]
    refused = [r for r in replies if b"UNAVAILABLE" in r or r.startswith(b"454 4.7.0")]
    assert len(checked) == PER_ADDRESS, replies
    assert len(refused) == len(replies) - PER_ADDRESS, replies


async def attack(gateway: Gateway, name: str, stop: asyncio.Event) -> int:
    """Wrong passwords for `name` over SMTP from ever new addresses, until `stop`:
    each address is refused after its few, so the attacker moves on (a botnet)."""
    attempts = 0
    for number in itertools.count(10):
        if stop.is_set() or number > 250:
            break
        async with raw_connection(gateway.smtp_port, f"127.0.0.{number}") as smtp:
            await smtp_greeted(smtp)
            for _ in range(PER_ADDRESS + 1):
                attempts += 1
                if (await smtp_auth(smtp, name, "a guess")).startswith(b"454"):
                    break
    return attempts


async def test_the_owner_logs_in_while_an_attack_on_their_name_runs(api: Api) -> None:
    gateway = api.gateway
    owner = await api.human("victim")
    key = await api.user_key(owner)
    client = api.client()
    before = await scrape(client)
    stop = asyncio.Event()
    attacker = asyncio.create_task(attack(gateway, "victim", stop))
    try:
        # Wait until the account is over its limit (the server's count of failures).
        async with asyncio.timeout(60):
            while logins(before, await scrape(client), "smtp", "failed") <= PER_ACCOUNT:
                await asyncio.sleep(0.05)
        during = await scrape(client)
        # The owner, from an address of their own, logs in by every way in: slowed, not
        # refused (the attack runs over SMTP, so IMAP's and the web's waits are theirs).
        assert (await imap_login(gateway, "127.0.0.5", "victim", PASSWORD)).startswith(b"L OK")
        assert (await web_login(gateway, "127.0.0.5", "victim", PASSWORD)).status_code == 200
        assert (await smtp_login(gateway, "127.0.0.5", "victim", PASSWORD)).startswith(b"235")
        owner_done = await scrape(client)
        assert not attacker.done(), "the attack ended before the owner logged in"
    finally:
        stop.set()
        attempts = await attacker
    assert slowed(during, owner_done, "imap") == 1
    assert slowed(during, owner_done, "web") == 1
    assert logins(during, owner_done, "web", "refused") == 0
    assert logins(before, owner_done, "smtp", "refused") >= 1  # the attacker's addresses
    assert attempts > PER_ACCOUNT

    # The account is still over its limit: a key is not slowed, a password still is.
    quiet = await scrape(client)
    assert (await imap_login(gateway, "127.0.0.5", "victim", key)).startswith(b"L OK")
    after_key = await scrape(client)
    assert slowed(quiet, after_key, "imap") == 0
    assert (await imap_login(gateway, "127.0.0.5", "victim", PASSWORD)).startswith(b"L OK")
    assert slowed(after_key, await scrape(client), "imap") == 1

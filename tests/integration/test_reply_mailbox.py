"""Replies collected from a mailbox over IMAP (`AGENTMAIL_REPLY_MAILBOX`): a real Dovecot
holds the provider's mailbox, the test DNS server the outside domain's DKIM, DMARC and
SPF records, an aiosmtpd smarthost takes the request's copy to alice's outside address.

There only an aligned DKIM pass decides: an unsigned reply whose From is alice's is
stored marked unverified; her signed reply decides; the same message found again (a
copy in the mailbox) is not stored twice; a message to no reply address is passed
over; after a restart nothing already taken is taken again and new replies still are.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

import aioimaplib
import httpx
import pytest
from sqlalchemy import func, select

from core.replies.collected import CURSOR_KEY
from core.replies.inbound import NO_DOMAIN_PROOF, VERIFIED
from core.store.models import ExternalAddress, Meta, OutsideReply, utcnow
from gateway.server import Gateway
from tests.support.dovecot import Dovecot, running_dovecot
from tests.support.gateway import Api, running_gateway
from tests.support.outside.dkim_keys import make_key
from tests.support.outside.dns import DnsServer, running_dns
from tests.support.replies import header, reply
from tests.support.smarthost import Smarthost, smarthost

ALICE = "alice@outside.test"
KEY = make_key("outside.test")
WAIT = 60.0  # seconds for the watcher to take a message: a bound on a hang, not a speed


@dataclass
class Setting:
    dovecot: Dovecot
    dns: DnsServer
    host: Smarthost
    database_url: str
    data_dir: Path


@pytest.fixture
async def setting(database_url: str, tmp_path: Path) -> AsyncIterator[Setting]:
    async with (
        running_dovecot(tmp_path / "dovecot") as dovecot,
        running_dns(None, "127.0.0.1", ["outside.test"], port=0) as dns,
        smarthost() as host,
    ):
        dns.set_txt(KEY.record_name, KEY.record_text)
        dns.set_txt("_dmarc.outside.test", "v=DMARC1; p=reject")
        dns.set_txt("outside.test", "v=spf1 ip4:192.0.2.25 -all")
        yield Setting(dovecot, dns, host, database_url, tmp_path / "data")


def _gateway(setting: Setting) -> AbstractAsyncContextManager[Gateway]:
    dovecot = setting.dovecot
    return running_gateway(
        setting.database_url,
        setting.data_dir,
        smarthost=setting.host.address,
        smarthost_tls="none",
        dns_servers=f"127.0.0.1:{setting.dns.port}",
        reply_mailbox=dovecot.url(),
        reply_mailbox_password=dovecot.password,
        reply_mailbox_cafile=dovecot.ca_file,
        reply_mailbox_poll_seconds=1.0,
    )


async def _append(dovecot: Dovecot, *messages: bytes) -> None:
    client = aioimaplib.IMAP4_SSL(dovecot.host, dovecot.port, ssl_context=dovecot.ssl_context())
    await client.wait_hello_from_server()
    assert (await client.login(dovecot.user, dovecot.password)).result == "OK"
    for raw in messages:
        assert (await client.append(raw, mailbox="INBOX")).result == "OK"
    await client.logout()


async def _ask_alice(
    gateway: Gateway, host: Smarthost
) -> tuple[Api, httpx.AsyncClient, str, bytes]:
    """alice with alice@outside.test verified; builder's request to her; its copy there."""
    store = gateway.store
    assert store is not None
    api = Api(gateway)
    alice = await api.human("alice")
    builder = await api.agent("builder")
    await store.write(
        lambda s: s.add(ExternalAddress(owner="alice", address=ALICE, verified_at=utcnow()))
    )
    asked = await builder.post(
        "/api/v1/permission/request",
        json={"to": "alice@", "question": "Deploy?", "options": ["approve", "reject"]},
    )
    assert asked.status_code == 200, asked.text
    async with asyncio.timeout(WAIT):
        while not host.received:
            await asyncio.sleep(0.05)
    [copy] = host.received
    assert header(copy.data, "Reply-To").startswith("<reply+")
    return api, alice, asked.json()["mail_id"], copy.data


async def _marks(gateway: Gateway) -> list[tuple[bool, str]]:
    store = gateway.store
    assert store is not None
    rows = await store.read(
        lambda s: s.execute(
            select(OutsideReply.decided, OutsideReply.reason).order_by(OutsideReply.received_at)
        ).all()
    )
    return [(bool(decided), str(reason)) for decided, reason in rows]


async def _until(check: Callable[[], Awaitable[bool]]) -> None:
    async with asyncio.timeout(WAIT):
        while not await check():
            await asyncio.sleep(0.05)


async def test_only_a_dkim_signed_reply_collected_over_imap_decides(setting: Setting) -> None:
    async with _gateway(setting) as gateway:
        api, alice, request_id, copy = await _ask_alice(gateway, setting.host)
        try:
            # From alice's address, unsigned: SPF cannot be judged here, so no proof.
            await _append(setting.dovecot, reply(copy, "1", sender=ALICE))
            await _until(lambda: _count(gateway, 1))
            [(decided, reason)] = await _marks(gateway)
            assert not decided and reason.startswith(NO_DOMAIN_PROOF), reason
            assert await _state(alice, request_id, "open")
            # Signed by her domain: decides. Found twice in the mailbox: stored once.
            signed = KEY.sign(reply(copy, "1", sender=ALICE))
            unrelated = reply(copy, "hello", to="somebody@elsewhere.test")
            await _append(setting.dovecot, unrelated, signed, signed)
            await _until(lambda: _state(alice, request_id, "decided"))
            await _until(lambda: _cursor_at(gateway, 4))
            assert await _marks(gateway) == [(False, reason), (True, VERIFIED)]
        finally:
            await api.close()
    async with _gateway(setting) as gateway:  # restarted: the cursor holds
        note = KEY.sign(reply(copy, "thanks", sender=ALICE))
        await _append(setting.dovecot, note)
        await _until(lambda: _count(gateway, 3))
        await _until(lambda: _cursor_at(gateway, 5))
        marks = await _marks(gateway)
        assert marks[:2] == [(False, reason), (True, VERIFIED)]
        assert len(marks) == 3 and not marks[2][0]  # an ordinary reply: no decision


async def _count(gateway: Gateway, count: int) -> bool:
    store = gateway.store
    assert store is not None
    found = await store.read(lambda s: s.scalar(select(func.count()).select_from(OutsideReply)))
    return found == count


async def _state(alice: httpx.AsyncClient, request_id: str, state: str) -> bool:
    shown = await alice.get(f"/api/v1/me/mail/{request_id}")
    return bool(shown.json()["permission_state"] == state)


async def _cursor_at(gateway: Gateway, uid: int) -> bool:
    """The watcher has passed UID `uid` (taken or passed over)."""
    store = gateway.store
    assert store is not None
    row = await store.read(lambda s: s.get(Meta, CURSOR_KEY))
    return row is not None and f'"uid": {uid}' in row.value

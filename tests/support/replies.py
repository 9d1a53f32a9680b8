"""A gateway wired to the outside world for replies from outside: its MX listener where
the world's Postfix relays the gateway's domain, its smarthost the world's Postfix, its
DNS the world's, its DKIM key published there; and alice with her external address
alice@outside.test verified through the code mailed to her Dovecot mailbox."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from pathlib import Path

import httpx
from sqlalchemy import select

from core.relay.dkim_key import generate_dkim_key, save_dkim_key
from core.store.models import OutsideReply
from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.outside import OutsideWorld

ALICE_OUTSIDE = "alice@outside.test"


@dataclass
class Wired:
    world: OutsideWorld
    gateway: Gateway
    api: Api
    alice: httpx.AsyncClient
    builder: httpx.AsyncClient


@asynccontextmanager
async def wired_gateway(
    world: OutsideWorld, database_url: str, data_dir: Path
) -> AsyncIterator[Wired]:
    async with running_gateway(
        database_url,
        data_dir,
        host="0.0.0.0",
        domain=world.gateway_domain,
        mx_port=world.gateway_port,
        smarthost=f"{world.address('mx')}:25",
        smarthost_tls="none",
        dns_servers=world.address("dns"),
    ) as gateway:
        assert gateway.store is not None
        key = generate_dkim_key("gw")
        await save_dkim_key(gateway.store, gateway.secrets, key)
        world.dns.set_txt(key.record_name(world.gateway_domain), key.record())
        api = Api(gateway)
        try:
            alice = await api.human("alice")
            builder = await api.agent("builder")
            yield Wired(world, gateway, api, alice, builder)
        finally:
            await api.close()


async def verify_alice(wired: Wired) -> str:
    """alice@outside.test added and verified with the code from her mailbox; its id."""
    made = await wired.alice.post("/api/v1/me/external-addresses", json={"address": ALICE_OUTSIDE})
    assert made.status_code == 201, made.text
    assert made.json()["verified"] is False
    [mail] = await wired.world.wait_for_mail(lambda m: b"verification code" in m)
    code = re.search(rb"code: (\d{6})", mail)
    assert code is not None
    address_id: str = made.json()["address_id"]
    checked = await wired.alice.post(
        f"/api/v1/me/external-addresses/{address_id}/verify",
        json={"code": code.group(1).decode()},
    )
    assert checked.status_code == 200, checked.text
    assert checked.json()["verified"] is True
    return address_id


def header(raw: bytes, name: str) -> str:
    value = BytesParser().parsebytes(raw, headersonly=True)[name]
    return "" if value is None else str(value)


def reply(
    request: bytes, body: str, *, sender: str = ALICE_OUTSIDE, to: str | None = None
) -> bytes:
    """A reply to the `request` copy as alice's mail client writes it (To: its Reply-To)."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to or header(request, "Reply-To")
    message["Subject"] = "Re: " + header(request, "Subject")
    message["Date"] = "Sat, 05 Dec 2026 12:00:00 +0000"
    message["Message-ID"] = make_msgid(domain="outside.test")
    message["In-Reply-To"] = header(request, "Message-ID")
    message.set_content(f"{body}\n\nOn Sat, 5 Dec 2026, builder wrote:\n> 1. approve\n")
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


async def request_copy(wired: Wired, subject: str) -> tuple[str, bytes]:
    """builder asks alice; the request's mail id and the copy in her outside mailbox."""
    asked = await wired.builder.post(
        "/api/v1/permission/request",
        json={"to": "alice@", "question": subject, "options": ["approve", "reject"]},
    )
    assert asked.status_code == 200, asked.text
    [copy] = await wired.world.wait_for_mail(lambda m: subject.encode() in m and b"Reply-To" in m)
    return asked.json()["mail_id"], copy


async def permission_state(wired: Wired, mail_id: str) -> str:
    shown = await wired.alice.get(f"/api/v1/me/mail/{mail_id}")
    assert shown.status_code == 200, shown.text
    state: str = shown.json()["permission_state"]
    return state


async def outside_marks(wired: Wired) -> list[tuple[bool, str]]:
    """(decided, reason) of every mail the MX listener stored, oldest first."""
    store = wired.gateway.store
    assert store is not None
    rows = await store.read(
        lambda s: s.execute(
            select(OutsideReply.decided, OutsideReply.reason).order_by(OutsideReply.received_at)
        ).all()
    )
    return [(bool(d), str(r)) for d, r in rows]

"""One mail read alone carries its outside mark: a reply the MX listener stored from a
sender whose domain nothing proves (a local DNS server that knows no records) is shown
to the human and to the agent as "from outside, not verified, decided nothing", with
the Authentication-Results; a mail from inside has no mark."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from core.store.models import ExternalAddress, OutsideReply, utcnow
from gateway.server import Gateway
from tests.support.gateway import Api
from tests.support.mx_gateway import mx_gateway, reply_address
from tests.support.raw_lines import raw_connection

SENDER = "a@out.test"


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    async with mx_gateway(database_url, tmp_path / "data") as running:
        yield running


async def _reply_address(gateway: Gateway, builder: httpx.AsyncClient) -> tuple[str, str]:
    """alice's verified address outside, a request to her: its mail id and reply address."""
    store = gateway.store
    assert store is not None
    now = utcnow()
    await store.write(
        lambda s: s.add(ExternalAddress(owner="alice", address=SENDER, verified_at=now))
    )
    asked = await builder.post(
        "/api/v1/permission/request",
        json={"to": "alice@", "question": "May I?", "options": ["approve", "reject"]},
    )
    assert asked.status_code == 200, asked.text
    return asked.json()["mail_id"], await reply_address(gateway)


async def _send_reply(port: int, to: str) -> None:
    message = (
        f"From: {SENDER}\r\nTo: {to}\r\nSubject: Re: May I?\r\n"
        "Message-ID: <r1@out.test>\r\n\r\napprove\r\n.\r\n"
    ).encode()
    async with raw_connection(port) as mx:
        assert (await mx.smtp_reply())[-1].startswith(b"220")
        await mx.smtp(b"EHLO out.test\r\n")
        assert (await mx.smtp(f"MAIL FROM:<{SENDER}>\r\n".encode()))[-1][:3] == b"250"
        assert (await mx.smtp(f"RCPT TO:<{to}>\r\n".encode()))[-1][:3] == b"250"
        assert (await mx.smtp(b"DATA\r\n"))[-1][:3] == b"354"
        stored = await mx.smtp(message)
        assert stored[-1][:3] == b"250", stored


async def test_a_reply_from_outside_is_marked_not_verified(gateway: Gateway) -> None:
    assert gateway.mx_port is not None and gateway.store is not None
    api = Api(gateway)
    try:
        alice = await api.human("alice")
        builder = await api.agent("builder")
        request_id, address = await _reply_address(gateway, builder)
        await _send_reply(gateway.mx_port, address)
        reply_id = await gateway.store.read(lambda s: s.scalar(select(OutsideReply.mail_id)))
        assert reply_id is not None
        shown = await alice.get(f"/api/v1/me/mail/{reply_id}")
        assert shown.status_code == 200, shown.text
        mark = shown.json()["outside"]
        assert mark["sender"] == SENDER
        assert (mark["verified"], mark["decided"]) == (False, False)
        assert mark["reason_code"] == "no_domain_proof"
        assert mark["reason"].startswith("the sender's domain is not proven")
        assert "dmarc=" in mark["authentication_results"]
        request = await alice.get(f"/api/v1/me/mail/{request_id}")
        assert request.json()["outside"] is None
        assert request.json()["permission_state"] == "open"
        seen = await builder.get(f"/api/v1/mail/{reply_id}")
        assert seen.status_code == 200, seen.text
        assert seen.json()["outside"]["reason_code"] == "no_domain_proof"
    finally:
        await api.close()

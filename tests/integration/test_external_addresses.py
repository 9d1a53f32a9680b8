"""External addresses over HTTP, on a gateway whose smarthost is a local aiosmtpd: a
code mailed from postmaster to the address (and nowhere inside), a wrong code counted,
the right one verifying, the choices, the limits (addresses, codes an hour), and
another person's address unknown. The outside world's scenarios are
tests/integration/test_replies_from_outside.py's."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx

from core.replies.addresses import MAX_ADDRESSES
from core.replies.codes import CODES_PER_HOUR, MAX_TRIES
from tests.support.gateway import Api, running_gateway
from tests.support.smarthost import Smarthost, smarthost

V1 = "/api/v1/me/external-addresses"


async def _code(host: Smarthost, address: str, seen: int) -> str:
    async with asyncio.timeout(30):
        while len([r for r in host.received if address in r.rcpt_tos]) <= seen:
            host.arrived.clear()
            await host.arrived.wait()
    mail = [r for r in host.received if address in r.rcpt_tos][seen]
    # The gateway's own mail, its bounces to the job's bounce address (core/relay/envelope.py).
    assert re.fullmatch(r"postmaster\+[0-9a-f-]{36}\.\d+@agentmail\.localhost", mail.mail_from)
    found = re.search(rb"code: (\d{6})", mail.data)
    assert found is not None
    return found.group(1).decode()


async def test_external_addresses_over_http(database_url: str, tmp_path: Path) -> None:
    async with (
        smarthost() as host,
        running_gateway(
            database_url, tmp_path, smarthost=host.address, smarthost_tls="none"
        ) as gateway,
    ):
        api = Api(gateway)
        try:
            alice = await api.human("alice")
            bob = await api.human("bob")
            await _scenario(alice, bob, host)
        finally:
            await api.close()


async def _scenario(alice: httpx.AsyncClient, bob: httpx.AsyncClient, host: Smarthost) -> None:
    bad = await alice.post(V1, json={"address": "alice@agentmail.localhost"})
    assert bad.status_code == 422, bad.text
    made = await alice.post(V1, json={"address": "Alice@Example.COM"})
    assert made.status_code == 201, made.text
    address = made.json()
    assert address["address"] == "Alice@example.com" and not address["verified"]
    assert address["requests"] is True and address["other_mail"] is False
    again = await alice.post(V1, json={"address": "alice@example.com"})
    assert again.status_code == 409
    code = await _code(host, "Alice@example.com", 0)
    inbox = await alice.get("/api/v1/me/mail/inbox")
    assert code not in inbox.text  # the code is mailed outside only

    url = f"{V1}/{address['address_id']}"
    wrong = "0" * 6 if code != "0" * 6 else "1" * 6
    refused = await alice.post(f"{url}/verify", json={"code": wrong})
    assert refused.status_code == 422
    assert f"{MAX_TRIES - 1} tries left" in refused.json()["error"]["message"]
    assert (await bob.post(f"{url}/verify", json={"code": code})).status_code == 404
    assert (await bob.delete(url)).status_code == 404
    verified = await alice.post(f"{url}/verify", json={"code": code})
    assert verified.status_code == 200 and verified.json()["verified"] is True

    changed = await alice.patch(url, json={"other_mail": True, "requests": False})
    assert changed.json()["other_mail"] is True and changed.json()["requests"] is False
    listed = await alice.get(V1)
    assert [a["address"] for a in listed.json()["addresses"]] == ["Alice@example.com"]
    assert (await bob.get(V1)).json()["addresses"] == []

    # Addresses: at most MAX_ADDRESSES each.
    for n in range(1, MAX_ADDRESSES):
        made = await alice.post(V1, json={"address": f"a{n}@example.com"})
        assert made.status_code == 201, made.text
    over = await alice.post(V1, json={"address": "late@example.com"})
    assert over.status_code == 422 and over.json()["error"]["code"] == "limit_reached"
    assert (await alice.delete(url)).json() == {"status": "deleted"}
    assert len((await alice.get(V1)).json()["addresses"]) == MAX_ADDRESSES - 1

    # Codes an hour, per person (bob's own count): the first, then new ones.
    made = await bob.post(V1, json={"address": "bob@example.com"})
    resend = f"{V1}/{made.json()['address_id']}/code"
    for _ in range(1, CODES_PER_HOUR):
        assert (await bob.post(resend)).status_code == 200
    over = await bob.post(resend)
    assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited"

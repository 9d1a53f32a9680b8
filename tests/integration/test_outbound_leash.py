"""Agents mailing outside under a leash, over HTTP (both DBs): the allowlist endpoints
(admins write, the agent reads its own), a mail off the list held behind a permission
request, and approvals racing — on PostgreSQL from two gateways on one database, as
replicas — that decide once and queue the mail once, which reaches the smarthost with
its stored Message-ID."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from core.store.models import OutboundJob
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok
from tests.support.smarthost import smarthost

ALLOWLIST = "/api/v1/admin/agents/builder/outbound-allowlist"
DECIDE = "/api/v1/me/permission/decide"
RACERS = 8


async def test_the_allowlist_is_set_by_admins_and_read_by_its_agent(api: Api) -> None:
    admin = await api.admin()
    builder = await api.agent("builder")
    assert ok(await admin.get(ALLOWLIST)) == {"entries": []}
    entries = ["Bob@Example.com", "*.Example.org", "mailto:carol@example.net", "example.net"]
    written = ok(await admin.put(ALLOWLIST, json={"entries": entries}))
    expected = ["*.example.org", "Bob@example.com", "carol@example.net", "example.net"]
    assert written == {"entries": expected}
    assert ok(await builder.get("/api/v1/agent/outbound-allowlist")) == {"entries": expected}
    for bad in (["bücher.example"], ["*.*.example.com"], ["x" * 300], ["example"]):
        refused = await admin.put(ALLOWLIST, json={"entries": bad})
        assert refused.status_code == 422, refused.text
    too_many = [f"d{i}.example" for i in range(201)]
    assert (await admin.put(ALLOWLIST, json={"entries": too_many})).status_code == 422
    assert ok(await admin.get(ALLOWLIST)) == {"entries": expected}  # unchanged by refusals
    missing = await admin.put(
        "/api/v1/admin/agents/nobody/outbound-allowlist", json={"entries": []}
    )
    assert missing.status_code == 404
    assert (await builder.put(ALLOWLIST, json={"entries": []})).status_code == 403


async def _approve(client: httpx.AsyncClient, mail_id: str) -> int:
    response = await client.post(DECIDE, json={"mail_id": mail_id, "decision": "approve"})
    return response.status_code


async def _held_then_raced(api: Api, deciders: list[httpx.AsyncClient]) -> dict[str, Any]:
    """builder mails alice off its list in jianf's task; the approvals race."""
    admin, jianf = await api.admin(), deciders[0]
    builder = await api.agent("builder")
    ok(await admin.patch("/api/v1/admin/agents/builder", json={"outbound_mail": True}))
    task = ok(await jianf.post("/api/v1/me/mail/send", json={"to": "builder@ModelRouter"}))
    sent = ok(
        await builder.post(
            "/api/v1/mail/send",
            json={
                "to": "mailto:alice@outside.test",
                "subject": "The report",
                "body": "attached below",
                "reply_to": task["mail_id"],
            },
        )
    )
    held = sent["held"]
    assert held["recipients"] == ["mailto:alice@outside.test"]
    request = ok(await jianf.get(f"/api/v1/me/mail/{held['request_id']}"))
    assert request["subject"] == "Send this mail to alice@outside.test?"
    assert "Subject: The report" in request["body"] and "attached below" in request["body"]
    racing = [_approve(deciders[i % len(deciders)], held["request_id"]) for i in range(RACERS)]
    codes = await asyncio.gather(*racing)
    assert sorted(codes) == [200] + [409] * (RACERS - 1), codes
    return sent


async def _jobs(api: Api) -> list[tuple[str, str]]:
    query = select(OutboundJob.mail_id, OutboundJob.recipient)
    rows = await api.gateway.store.read(lambda s: s.execute(query).all())
    return [(row.mail_id, row.recipient) for row in rows]


async def test_racing_approvals_queue_the_held_mail_once(database_url: str, tmp_path: Path) -> None:
    replica = database_url.startswith("postgresql")
    async with (
        smarthost() as host,
        running_gateway(
            database_url, tmp_path / "a", smarthost=host.address, smarthost_tls="none"
        ) as gateway,
    ):
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            deciders = [jianf]
            if replica:  # a second replica, its own process state, the same database
                async with running_gateway(
                    database_url, tmp_path / "b", smarthost=host.address, smarthost_tls="none"
                ) as other:
                    second = Api(other)
                    deciders.append(await second.login("jianf", PASSWORD))
                    sent = await _held_then_raced(api, deciders)
                    await second.close()
            else:
                sent = await _held_then_raced(api, deciders)
            assert await _jobs(api) == [(sent["mail_id"], "alice@outside.test")]
            async with asyncio.timeout(30):
                await host.arrived.wait()
            (got,) = host.received
            assert got.message_id == sent["message_id"]
            assert got.rcpt_tos == ["alice@outside.test"]
        finally:
            await api.close()

"""Outbound mail over HTTP, on a gateway whose smarthost is a local aiosmtpd: the admin
switch (`PATCH /admin/users/{name}`, `/admin/agents/{name}`), `403 outbound_not_allowed`
with nothing stored, and a mail to `mailto:` reaching the smarthost from the gateway's
own sender loop with its stored Message-ID. The queue's rules (retries, notices,
limits) are tests/domain/test_outbound.py's."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.gateway import Api, running_gateway
from tests.support.smarthost import smarthost

BOB = "mailto:bob@example.com"


async def test_outbound_mail_over_http(database_url: str, tmp_path: Path) -> None:
    async with (
        smarthost() as host,
        running_gateway(
            database_url, tmp_path, smarthost=host.address, smarthost_tls="none"
        ) as gateway,
    ):
        api = Api(gateway)
        try:
            admin = await api.admin()
            jianf = await api.human("jianf")
            builder = await api.agent("builder")
            refused = await jianf.post("/api/v1/me/mail/send", json={"to": BOB, "subject": "x"})
            assert refused.status_code == 403, refused.text
            assert refused.json()["error"]["code"] == "outbound_not_allowed"
            sent = await jianf.get("/api/v1/me/mail/sent")
            assert sent.json()["total"] == 0

            on = await admin.patch("/api/v1/admin/users/jianf", json={"outbound_mail": True})
            assert on.status_code == 200 and on.json()["outbound_mail"] is True
            assert on.json()["is_admin"] is False
            agent = await admin.patch("/api/v1/admin/agents/builder", json={"outbound_mail": True})
            assert agent.status_code == 200 and agent.json()["outbound_mail"] is True
            assert agent.json()["default_budget"] == 20
            missing = await admin.patch("/api/v1/admin/agents/nobody", json={"outbound_mail": True})
            assert missing.status_code == 404
            forbidden = await builder.patch(
                "/api/v1/admin/users/jianf", json={"outbound_mail": False}
            )
            assert forbidden.status_code in (401, 403)

            response = await jianf.post(
                "/api/v1/me/mail/send", json={"to": BOB, "subject": "Hello", "body": "hi"}
            )
            assert response.status_code == 200, response.text
            async with asyncio.timeout(30):
                await host.arrived.wait()
            (got,) = host.received
            assert got.message_id == response.json()["message_id"]
            shown = await jianf.get(f"/api/v1/me/mail/{response.json()['mail_id']}")
            assert shown.json()["to"] == BOB
        finally:
            await api.close()

"""An agent mailing off its allowlist, in the outside world (both DBs): the gateway's
smarthost is the world's Postfix, alice's mailbox its Dovecot. Held mails become
permission requests; the approved one arrives in alice's mailbox once, with its stored
Message-ID; the rejected one never leaves. "Never" is checked once the outbound loop
has run past it: a mail queued after the decisions (alice allowlisted by then) has
arrived, Postfix's queue is empty, and the rejected mail has no job at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from core.store.models import OutboundJob
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.outside import OutsideWorld

pytestmark = pytest.mark.outside
ALICE = "mailto:alice@outside.test"
DECIDE = "/api/v1/me/permission/decide"


async def test_held_mail_reaches_alice_once_when_approved_and_never_when_rejected(
    outside_world: OutsideWorld, database_url: str, tmp_path: Path
) -> None:
    world = outside_world
    async with running_gateway(
        database_url,
        tmp_path,
        domain=world.gateway_domain,
        smarthost=f"{world.address('mx')}:587",
        smarthost_tls="none",  # the world's Postfix offers no STARTTLS
        dns_servers=world.address("dns"),
    ) as gateway:
        api = Api(gateway)
        try:
            admin, jianf = await api.admin(), await api.human("jianf")
            builder = await api.agent("builder")
            ok(await admin.patch("/api/v1/admin/agents/builder", json={"outbound_mail": True}))
            task = ok(await jianf.post("/api/v1/me/mail/send", json={"to": "builder@ModelRouter"}))

            async def mail_alice(subject: str) -> dict[str, object]:
                body = {"to": ALICE, "subject": subject, "reply_to": task["mail_id"]}
                return ok(await builder.post("/api/v1/mail/send", json=body))

            approved, rejected = await mail_alice("approved"), await mail_alice("rejected")
            requests = ok(await jianf.get("/api/v1/me/permissions", params={"state": "open"}))
            assert {r["mail_id"] for r in requests["mails"]} == {
                approved["held"]["request_id"],  # type: ignore[index]
                rejected["held"]["request_id"],  # type: ignore[index]
            }
            for sent, decision in ((approved, "approve"), (rejected, "reject")):
                request_id = sent["held"]["request_id"]  # type: ignore[index]
                decide = {"mail_id": request_id, "decision": decision}
                assert (await jianf.post(DECIDE, json=decide)).status_code == 200
                assert (await jianf.post(DECIDE, json=decide)).status_code == 409

            admin_put = {"entries": ["alice@outside.test"]}
            ok(await admin.put("/api/v1/admin/agents/builder/outbound-allowlist", json=admin_put))
            after = await mail_alice("after the decisions")
            assert after["held"] is None
            ids = [str(m["message_id"]).encode() for m in (approved, rejected, after)]
            await world.wait_for_mail(lambda raw: ids[2] in raw)
            await world.wait_for_mail(lambda raw: ids[0] in raw)
            inbox = await world.mailbox()
            assert [sum(i in raw for raw in inbox) for i in ids] == [1, 0, 1]
            assert await world.postfix_queue() == []
            query = select(OutboundJob.mail_id)
            jobs = await gateway.store.read(lambda s: list(s.scalars(query)))
            assert sorted(jobs) == sorted([approved["mail_id"], after["mail_id"]])
        finally:
            await api.close()

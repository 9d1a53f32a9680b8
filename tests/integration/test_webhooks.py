"""Webhooks: a receiver on loopback (tests/support/webhook_receiver.py) gets the events of
its endpoint's owner, signed per Standard Webhooks (each verified with the
`standardwebhooks` package and the secret shown once at creation); a 500 is tried
again; an endpoint failing in a row is disabled, its owner told; an event is replayed
by its id. Every test runs on SQLite and PostgreSQL (the delivery rows and their claim).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.http import AGENT_SEND, ok
from tests.support.sse import open_stream
from tests.support.webhook_receiver import Receiver, webhook_receiver

HOOKS = "/api/v1/me/webhooks"
REQUEST = "/api/v1/permission/request"


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with webhook_receiver() as running:
        yield running


@pytest.fixture
async def api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    """A gateway that may post to loopback over http, retrying at once, disabling an
    endpoint after two deliveries given up on (each after two tries)."""
    async with running_gateway(
        database_url,
        tmp_path / "data",
        webhook_allow_private_endpoints=True,
        webhook_retry_seconds=0.01,
        webhook_max_attempts=2,
        webhook_disable_after=2,
    ) as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def _registered(human: httpx.AsyncClient, url: str, **body: Any) -> dict[str, Any]:
    made = await human.post(HOOKS, json={"url": url, **body})
    assert made.status_code == 201, made.text
    created: dict[str, Any] = made.json()
    assert created["secret"].startswith("whsec_")
    return created


async def _settled(human: httpx.AsyncClient, hook_url: str) -> list[dict[str, Any]]:
    """The endpoint's deliveries once none is pending (a receiver has its request before
    the gateway records the answer)."""
    async with asyncio.timeout(30):
        while True:
            listed: list[dict[str, Any]] = ok(await human.get(f"{hook_url}/deliveries"))[
                "deliveries"
            ]
            if all(d["state"] != "pending" for d in listed):
                return listed
            await asyncio.sleep(0.05)


async def test_the_owners_events_arrive_signed_and_nothing_else(
    api: Api, receiver: Receiver
) -> None:
    jianf = await api.human("jianf")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    hook = await _registered(jianf, receiver.url, description="my CI")
    shown = ok(await jianf.get(f"{HOOKS}/{hook['webhook_id']}"))
    assert "secret" not in shown and shown["events"] == hook["events"]

    await builder.post(AGENT_SEND, json={"to": "bob@", "subject": "Not yours", "body": "x"})
    hi = {"to": "jianf@", "subject": "Hi", "body": "the body stays home"}
    mail = ok(await builder.post(AGENT_SEND, json=hi))
    question = {"to": "jianf@", "subject": "Which?", "body": "q", "mail_type": "question"}
    ok(await builder.post(AGENT_SEND, json=question))
    asked = ok(
        await builder.post(REQUEST, json={"to": "jianf@", "question": "Run rm?", "options": ["y"]})
    )
    decided = {"mail_id": asked["mail_id"], "decision": "y"}
    ok(await jianf.post("/api/v1/me/permission/decide", json=decided))

    got = [r.verified(hook["secret"]) for r in await receiver.wait_for(5)]
    types = [g["type"] for g in got]
    assert types[:2] == ["mail.received", "question.asked"]
    # The request made the conversation wait (one transaction, two events).
    assert set(types[2:4]) == {"permission.requested", "conversation.updated"}
    assert types[4] == "permission.decided"
    assert got[0]["data"]["mail_id"] == mail["mail_id"] and got[0]["data"]["subject"] == "Hi"
    assert "body" not in got[0]["data"] and "stays home" not in str(got)  # ids, short fields
    assert "Not yours" not in str(got)  # bob's mail is not jianf's
    first = receiver.received[0]
    assert first.headers["webhook-id"] == f"evt_{got[0]['event_id']}"
    listed = await _settled(jianf, f"{HOOKS}/{hook['webhook_id']}")
    assert {d["state"] for d in listed} == {"delivered"} and len(listed) == 5
    assert ok(await bob.get(HOOKS))["webhooks"] == []


async def test_a_500_is_tried_again_and_an_event_is_replayed_by_its_id(
    api: Api, receiver: Receiver
) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    hook = await _registered(jianf, receiver.url, events=["mail.received"])
    receiver.statuses = [500]
    ok(await builder.post(AGENT_SEND, json={"to": "jianf@", "subject": "Again", "body": "b"}))
    failed, retried = await receiver.wait_for(2)
    assert failed.headers["webhook-id"] == retried.headers["webhook-id"]
    event = retried.verified(hook["secret"])
    url = f"{HOOKS}/{hook['webhook_id']}"
    (delivery,) = await _settled(jianf, url)
    assert delivery["attempts"] == 2 and delivery["state"] == "delivered"
    assert delivery["event_id"] == event["event_id"]

    again = await jianf.post(f"{url}/replay", json={"event_id": event["event_id"]})
    assert again.status_code == 202, again.text
    replayed = (await receiver.wait_for(3))[2]
    assert replayed.verified(hook["secret"]) == event
    unknown = await jianf.post(f"{url}/replay", json={"event_id": event["event_id"] + 999})
    assert unknown.status_code == 404

    rotated = ok(await jianf.post(f"{url}/rotate-secret"))
    assert rotated["secret"] != hook["secret"]
    again = await jianf.post(f"{url}/replay", json={"event_id": event["event_id"]})
    assert again.status_code == 202, again.text
    assert (await receiver.wait_for(4))[3].verified(rotated["secret"]) == event


async def test_an_endpoint_failing_in_a_row_is_disabled_and_its_owner_told(
    api: Api, receiver: Receiver
) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    hook = await _registered(jianf, receiver.url, events=["mail.received"])
    url = f"{HOOKS}/{hook['webhook_id']}"
    receiver.statuses = [500] * 4  # two deliveries, two tries each
    async with open_stream(jianf) as stream:
        for subject in ("one", "two"):
            body = {"to": "jianf@", "subject": subject, "body": "b"}
            ok(await builder.post(AGENT_SEND, json=body))
        told = await stream.next_of("webhook_disabled", timeout=30)
    assert told.json["webhook_id"] == hook["webhook_id"]
    shown = ok(await jianf.get(url))
    assert shown["enabled"] is False and "2 deliveries in a row" in shown["disabled_reason"]
    assert len(receiver.received) == 4
    listed = await _settled(jianf, url)
    assert [d["state"] for d in listed] == ["failed", "failed"]
    assert listed[0]["last_status"] == 500

    ok(await builder.post(AGENT_SEND, json={"to": "jianf@", "subject": "off", "body": "b"}))
    enabled = ok(await jianf.post(f"{url}/enable"))
    assert enabled["enabled"] is True and enabled["failures"] == 0
    ok(await builder.post(AGENT_SEND, json={"to": "jianf@", "subject": "on", "body": "b"}))
    fifth = (await receiver.wait_for(5))[4].verified(hook["secret"])
    assert fifth["data"]["subject"] == "on"  # nothing was queued while it was disabled


async def test_an_admins_endpoint_hears_everyones_events_once_each(
    api: Api, receiver: Receiver
) -> None:
    admin = await api.admin()
    await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    made = await admin.post(
        "/api/v1/admin/webhooks", json={"url": receiver.url, "events": ["mail.received"]}
    )
    assert made.status_code == 201, made.text
    hook = made.json()
    assert hook["scope"] == "all"
    both = {"to": "jianf@", "cc": ["bob@"], "subject": "To both", "body": "b"}
    ok(await builder.post(AGENT_SEND, json=both))
    ok(await builder.post(AGENT_SEND, json={"to": "bob@", "subject": "Bob's", "body": "b"}))
    first, second = [r.verified(hook["secret"]) for r in await receiver.wait_for(2)]
    assert first["data"]["subject"] == "To both"
    assert first["data"]["recipients"] == ["jianf", "bob"]  # one change, one webhook
    assert second["data"]["subject"] == "Bob's" and second["data"]["recipients"] == ["bob"]
    listed = await _settled(admin, f"/api/v1/admin/webhooks/{hook['webhook_id']}")
    assert len(listed) == 2

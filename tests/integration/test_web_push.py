"""Web Push, the gateway's half: a permission request or question reaches a browser's
push service encrypted and VAPID-signed, naming the request and nothing of its text;
a 410 drops the subscription; endpoints the gateway must not post to are refused.

The push service is npm's `web-push-testing` on loopback (tests/support/web_push.py):
it refuses a push whose signature does not match the subscription's
`applicationServerKey` and decrypts the rest, so a message it kept is proof of both.
Every test runs on SQLite and PostgreSQL (the job rows and their claim).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.http import AGENT_SEND, ok
from tests.support.private_targets import REFUSED_URLS
from tests.support.web_push import PushService, push_service

PUSH = "/api/v1/me/push"
SUBSCRIPTIONS = f"{PUSH}/subscriptions"
REQUEST = "/api/v1/permission/request"
COMMAND = "rm -rf /srv/secret-deploy"


@pytest.fixture
async def service() -> AsyncIterator[PushService]:
    async with push_service() as running:
        yield running


@pytest.fixture
async def local_api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    """A gateway that may post to the push service on loopback (over http)."""
    async with running_gateway(
        database_url, tmp_path / "data", push_allow_private_endpoints=True
    ) as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def _subscribed(api: Api, service: PushService, human: httpx.AsyncClient) -> dict[str, Any]:
    public_key = ok(await human.get(PUSH))["public_key"]
    made = await service.subscribe(public_key)
    body = {"endpoint": made["endpoint"], "keys": made["keys"]}
    response = await human.post(SUBSCRIPTIONS, json=body, headers={"User-Agent": "Firefox 140"})
    assert response.status_code == 201, response.text
    assert response.json()["push_service"] == "localhost"
    return made


async def test_a_permission_request_and_a_question_are_pushed_without_their_text(
    local_api: Api, service: PushService
) -> None:
    jianf = await local_api.human("jianf")
    builder = await local_api.agent("builder")
    made = await _subscribed(local_api, service, jianf)
    listed = ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"]
    assert [s["user_agent"] for s in listed] == ["Firefox 140"]

    asked = ok(
        await builder.post(
            REQUEST,
            json={
                "to": "jianf@",
                "question": f"May I run `{COMMAND}`?",
                "options": ["approve", "reject"],
                "action": COMMAND,
            },
        )
    )
    (pushed,) = await service.next_messages(made["clientHash"])
    assert pushed == {
        "kind": "permission_request",
        "agent": "builder",
        "session_id": asked["session_id"],
        "mail_id": asked["mail_id"],
        "url": f"/decisions/{asked['mail_id']}",
    }
    assert "secret-deploy" not in str(pushed) and "May I" not in str(pushed)

    question = ok(
        await builder.post(
            AGENT_SEND,
            json={
                "to": "jianf@",
                "subject": "Which branch?",
                "body": f"Run {COMMAND}?",
                "mail_type": "question",
            },
        )
    )
    second = (await service.next_messages(made["clientHash"], 2))[1]
    assert second["kind"] == "question" and second["url"] == f"/inbox/{question['mail_id']}"
    assert "Which branch" not in str(second) and "secret-deploy" not in str(second)


async def test_a_410_from_the_push_service_drops_the_subscription(
    local_api: Api, service: PushService
) -> None:
    jianf = await local_api.human("jianf")
    builder = await local_api.agent("builder")
    made = await _subscribed(local_api, service, jianf)
    await service.expire(made["clientHash"])
    body = {"to": "jianf@", "question": "Deploy?", "options": ["yes", "no"]}
    ok(await builder.post(REQUEST, json=body))
    for _ in range(200):
        if not ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"]:
            break
        await asyncio.sleep(0.1)
    assert ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"] == []
    assert await service.messages(made["clientHash"]) == []


async def test_subscriptions_are_their_owners_to_revoke(
    local_api: Api, service: PushService
) -> None:
    jianf = await local_api.human("jianf")
    bob = await local_api.human("bob")
    await _subscribed(local_api, service, jianf)
    (mine,) = ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"]
    assert ok(await bob.get(SUBSCRIPTIONS))["subscriptions"] == []
    url = f"{SUBSCRIPTIONS}/{mine['subscription_id']}"
    assert (await bob.delete(url)).status_code == 404
    ok(await jianf.delete(url))
    assert ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"] == []


KEYS = {"p256dh": "B" + "A" * 86, "auth": "A" * 22}


async def test_endpoints_the_gateway_must_not_post_to_are_refused(gateway: Gateway) -> None:
    api = Api(gateway)
    try:
        jianf = await api.human("jianf")
        for endpoint in REFUSED_URLS:
            response = await jianf.post(SUBSCRIPTIONS, json={"endpoint": endpoint, "keys": KEYS})
            assert response.status_code == 422, (endpoint, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_request", endpoint
            assert error["fields"] == [{"field": "endpoint", "code": "invalid"}], endpoint
        too_long = {"endpoint": "https://1.1.1.1/" + "x" * 2048, "keys": KEYS}
        assert (await jianf.post(SUBSCRIPTIONS, json=too_long)).status_code == 422
        bad_keys = {"endpoint": "https://1.1.1.1/x", "keys": {**KEYS, "auth": "!" * 22}}
        assert (await jianf.post(SUBSCRIPTIONS, json=bad_keys)).status_code == 422
        # A public address is taken (and nothing is sent to it: no request is made).
        good = await jianf.post(SUBSCRIPTIONS, json={"endpoint": "https://1.1.1.1/x", "keys": KEYS})
        assert good.status_code == 201, good.text
        assert ok(await jianf.get(SUBSCRIPTIONS))["subscriptions"][0]["push_service"] == "1.1.1.1"
    finally:
        await api.close()

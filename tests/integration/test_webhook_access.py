"""Webhook endpoints: what registration refuses (URLs the gateway must not post to, the
limits) on a gateway without `AGENTMAIL_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS`, and whose
endpoints are whose: another person's do not exist for you, agents have none, the
admins' are the admins'. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.http import ok, refused
from tests.support.private_targets import REFUSED_URLS

HOOKS = "/api/v1/me/webhooks"
ADMIN_HOOKS = "/api/v1/admin/webhooks"
PUBLIC = "https://1.1.1.1/hooks"  # taken, and never posted to: no event reaches its owner


@pytest.fixture
async def api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    async with running_gateway(database_url, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def test_registration_refuses_private_targets_and_keeps_its_limits(api: Api) -> None:
    jianf = await api.human("jianf")
    for url in REFUSED_URLS:
        response = await jianf.post(HOOKS, json={"url": url})
        refused(response, 422, "invalid_request")
        assert response.json()["error"]["fields"] == [{"field": "url", "code": "invalid"}], url
    too_long = await jianf.post(HOOKS, json={"url": PUBLIC + "/" + "x" * 2048})
    assert (
        refused(too_long, 422, "invalid_request")
        and too_long.json()["error"]["fields"][0]["field"] == "url"
    )
    unknown = await jianf.post(HOOKS, json={"url": PUBLIC, "events": ["mail.deleted"]})
    assert unknown.json()["error"]["fields"][0]["field"].startswith("events")
    for n in range(20):
        made = await jianf.post(HOOKS, json={"url": f"{PUBLIC}/{n}"})
        assert made.status_code == 201, made.text
    refused(await jianf.post(HOOKS, json={"url": PUBLIC}), 422, "limit_reached")
    assert len(ok(await jianf.get(HOOKS))["webhooks"]) == 20


async def test_an_endpoint_is_its_owners_alone(api: Api) -> None:
    jianf = await api.human("jianf")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    admin = await api.admin()
    made = await jianf.post(HOOKS, json={"url": PUBLIC, "description": "jianf's"})
    assert made.status_code == 201, made.text
    mine = f"{HOOKS}/{made.json()['webhook_id']}"
    for method, path, body in [
        ("GET", "", None),
        ("DELETE", "", None),
        ("POST", "/enable", None),
        ("POST", "/rotate-secret", None),
        ("GET", "/deliveries", None),
        ("POST", "/replay", {"event_id": 1}),
    ]:
        url = mine + path
        assert (await bob.request(method, url, json=body)).status_code == 404, url
        assert (await builder.request(method, url, json=body)).status_code == 403, url
        as_admin = url.replace(HOOKS, ADMIN_HOOKS)  # the admins' are another set
        assert (await admin.request(method, as_admin, json=body)).status_code == 404, url
    assert ok(await bob.get(HOOKS))["webhooks"] == []
    assert ok(await admin.get(ADMIN_HOOKS))["webhooks"] == []
    refused(await builder.get(HOOKS), 403, "forbidden")
    refused(await bob.get(ADMIN_HOOKS), 403, "forbidden")
    ok(await jianf.delete(mine))
    assert (await jianf.get(mine)).status_code == 404

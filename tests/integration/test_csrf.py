"""Security issue, hole 4: a page on another origin cannot act with a user's login cookie.

Each POST of the issue is replayed as a foreign page would make the browser
send it (the cookie attached, `Origin: https://evil.example`): refused with
`403 csrf_origin` and without effect; the same request from the gateway's own
origin works; bearer keys are not concerned. HTTP only: SQLite is enough.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.gateway import ADMIN_PASSWORD, Api, running_gateway
from tests.support.http import HUMAN_MAIL, HUMAN_SEND, ok, refused

EVIL = "https://evil.example"
COOKIE = "agentmail_session"


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async with running_gateway(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "data") as gw:
        api = Api(gw)
        try:
            yield api
        finally:
            await api.close()


def with_origin(client: httpx.AsyncClient, origin: str | None) -> dict[str, str]:
    """Headers replacing the test client's own `Origin` (None: send no Origin at all)."""
    del client.headers["Origin"]
    return {} if origin is None else {"Origin": origin}


async def draft_id(human: httpx.AsyncClient) -> str:
    response = await human.post("/api/v1/me/drafts", json={"to": "jianf@", "subject": "draft"})
    assert response.status_code == 201, response.text
    return str(response.json()["draft_id"])


def the_requests(draft: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(who, path, request arguments): the five POSTs of the issue."""
    return [
        ("human", HUMAN_SEND, {"json": {"to": "jianf@", "subject": "forged", "body": "x"}}),
        ("human", "/api/v1/me/keys", {"json": {"lifecycle": "permanent"}}),
        ("admin", "/api/v1/admin/users", {"json": {"name": "mallory", "password": "p" * 12}}),
        ("human", "/api/v1/me/attachments", {"files": {"file": ("a.txt", b"hi", "text/plain")}}),
        (
            "human",
            f"/api/v1/me/drafts/{draft}/send",
            {"headers": {"Content-Type": "application/x-www-form-urlencoded"}, "content": b""},
        ),
    ]


async def test_foreign_origin_is_refused_and_own_origin_works(web: Api) -> None:
    human = await web.human("jianf")
    admin = await web.admin()
    clients = {"human": human, "admin": admin}
    draft = await draft_id(human)
    for who, path, args in the_requests(draft):
        client = clients[who]
        headers = {**args.pop("headers", {}), "Origin": EVIL}
        refused(await client.post(path, headers=headers, **args), 403, "csrf_origin")
        # No browser would omit Origin on a POST: with the cookie, that is refused too.
        bare = web.client()
        bare.cookies.set(COOKIE, client.cookies[COOKIE])
        del bare.headers["Origin"]
        refused(await bare.post(path, headers=headers | {"Origin": ""}, **args), 403, "csrf_origin")
        refused(await bare.post(path, headers=_without_origin(headers), **args), 403, "csrf_origin")
        # Nothing happened: no mail, no key, no admin, no upload, the draft still a draft.
    assert ok(await human.get(f"{HUMAN_MAIL}/sent"))["total"] == 0
    assert ok(await human.get("/api/v1/me/keys"))["keys"] == []
    users = ok(await admin.get("/api/v1/admin/users"))["users"]
    assert "mallory" not in [u["name"] for u in users]
    assert ok(await human.get("/api/v1/me/drafts"))["total"] == 1
    assert stored_files(web.gateway.settings.attachments_dir) == []

    # The same requests from the gateway's own origin work.
    for who, path, args in the_requests(draft):
        headers = {**args.pop("headers", {}), "Origin": web.base_url}
        response = await clients[who].post(path, headers=headers, **args)
        assert response.status_code in (200, 201), (path, response.text)
    assert ok(await human.get(f"{HUMAN_MAIL}/sent"))["total"] == 2  # the send and the draft
    assert len(stored_files(web.gateway.settings.attachments_dir)) == 1


def stored_files(directory: Path) -> list[Path]:
    return [path for path in directory.rglob("*") if path.is_file()] if directory.exists() else []


def _without_origin(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k != "Origin"}


async def test_fetch_metadata_same_origin_is_enough_without_origin(web: Api) -> None:
    human = await web.human("jianf")
    body = {"lifecycle": "permanent"}
    headers = with_origin(human, None)
    for site in ("cross-site", "same-site", "none"):
        response = await human.post("/api/v1/me/keys", json=body, headers={"Sec-Fetch-Site": site})
        refused(response, 403, "csrf_origin")
    response = await human.post(
        "/api/v1/me/keys", json=body, headers=headers | {"Sec-Fetch-Site": "same-origin"}
    )
    assert response.status_code == 201, response.text


async def test_every_unsafe_method_is_checked(web: Api) -> None:
    human = await web.human("jianf")
    draft = await draft_id(human)
    evil = {"Origin": EVIL}
    body = {"to": "jianf@", "subject": "changed"}
    refused(
        await human.put(f"/api/v1/me/drafts/{draft}", json=body, headers=evil), 403, "csrf_origin"
    )
    refused(await human.delete(f"/api/v1/me/drafts/{draft}", headers=evil), 403, "csrf_origin")
    session = ok(await human.post(HUMAN_SEND, json={"to": "jianf@", "subject": "s", "body": "b"}))
    path = f"/api/v1/sessions/{session['session_id']}"
    refused(await human.patch(path, json={"status": "completed"}, headers=evil), 403, "csrf_origin")
    assert ok(await human.get(path))["session"]["status"] != "completed"
    # Safe methods are not concerned: a foreign page cannot read the answer anyway.
    assert (await human.get("/api/v1/me", headers=evil)).status_code == 200


async def test_bearer_keys_are_not_affected(web: Api) -> None:
    human = await web.human("jianf")
    keyed = web.client(await web.user_key(human))
    del keyed.headers["Origin"]
    mail = {"to": "jianf@", "subject": "by key", "body": "b"}
    for headers in ({}, {"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}):
        assert (await keyed.post(HUMAN_SEND, json=mail, headers=headers)).status_code == 200
    # A key wins over a cookie sent beside it (api/deps.py): the cookie's check does not apply.
    keyed.cookies.set(COOKIE, human.cookies[COOKIE])
    response = await keyed.post(
        "/api/v1/me/keys", json={"lifecycle": "permanent"}, headers={"Origin": EVIL}
    )
    assert response.status_code == 201, response.text
    agent = await web.agent("builder")
    response = await agent.post(
        "/api/v1/mail/send",
        json={"to": "jianf@", "subject": "agent", "body": "b"},
        headers={"Origin": EVIL},
    )
    assert response.status_code == 200, response.text


async def test_a_forged_login_is_refused_but_clients_without_origin_log_in(web: Api) -> None:
    login = {"username": "admin", "password": ADMIN_PASSWORD}
    client = web.client()
    refused(
        await client.post("/api/v1/auth/login", json=login, headers={"Origin": EVIL}),
        403,
        "csrf_origin",
    )
    assert COOKIE not in client.cookies
    del client.headers["Origin"]
    response = await client.post("/api/v1/auth/login", json=login)  # a script, not a browser
    assert response.status_code == 200, response.text


async def test_mark_read_by_get_is_refused_with_the_cookie(web: Api) -> None:
    human = await web.human("jianf")
    ok(await human.post(HUMAN_SEND, json={"to": "jianf@", "subject": "s", "body": "b"}))
    message = refused(
        await human.get(f"{HUMAN_MAIL}/inbox", params={"mark_read": "true"}), 403, "forbidden"
    )
    assert "POST" in message
    assert ok(await human.get(f"{HUMAN_MAIL}/inbox", params={"status": "unread"}))["total"] == 1
    # With a key (no browser attaches one by itself) it works as documented.
    keyed = web.client(await web.user_key(human))
    listed = ok(await keyed.get(f"{HUMAN_MAIL}/inbox", params={"mark_read": "true"}))
    assert listed["total"] == 1
    assert ok(await human.get(f"{HUMAN_MAIL}/inbox", params={"status": "unread"}))["total"] == 0


async def test_the_cookie_is_strict_http_only_and_secure_over_https(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    login = {"username": "admin", "password": ADMIN_PASSWORD}
    async with running_gateway(url, tmp_path / "data", trusted_proxies="127.0.0.1") as gw:
        api = Api(gw)
        try:
            plain = await api.client().post("/api/v1/auth/login", json=login)
            cookie = plain.headers["set-cookie"].lower()
            assert "samesite=strict" in cookie and "httponly" in cookie
            assert "; secure" not in cookie
            # Behind a trusted proxy that terminated TLS.
            https = {"X-Forwarded-Proto": "https", "Origin": "https://" + api.base_url[7:]}
            proxied = await api.client().post("/api/v1/auth/login", json=login, headers=https)
            assert proxied.status_code == 200, proxied.text
            assert "; secure" in proxied.headers["set-cookie"].lower()
        finally:
            await api.close()
    # From an untrusted peer, X-Forwarded-Proto is not believed.
    async with running_gateway(url, tmp_path / "data") as gw:
        api = Api(gw)
        try:
            response = await api.client().post(
                "/api/v1/auth/login", json=login, headers={"X-Forwarded-Proto": "https"}
            )
            assert "; secure" not in response.headers["set-cookie"].lower()
        finally:
            await api.close()


async def test_the_public_origin_setting_decides(tmp_path: Path) -> None:
    public = "https://mail.example.com"
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    async with running_gateway(url, tmp_path / "data", public_origin=public) as gw:
        api = Api(gw)
        try:
            admin = api.client()
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            # The request's own Host no longer counts: only the public origin does.
            refused(await admin.post("/api/v1/auth/login", json=login), 403, "csrf_origin")
            admin.headers["Origin"] = public
            assert (await admin.post("/api/v1/auth/login", json=login)).status_code == 200
            body = {"lifecycle": "permanent"}
            response = await admin.post(
                "/api/v1/admin/agent-keys", json=body, headers={"Origin": api.base_url}
            )
            refused(response, 403, "csrf_origin")
            response = await admin.post(
                "/api/v1/admin/agent-keys", json=body, headers={"Origin": public + ":443"}
            )
            assert response.status_code == 201, response.text
        finally:
            await api.close()

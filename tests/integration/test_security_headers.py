"""Security issue, hole 4: the security headers on every response — API, errors,
the API docs and their assets, and an SSE stream that still streams.

The API docs live under the content security policy: no inline script, no
asset from another origin. HTTP only: SQLite is enough.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import open_stream

EVERYWHERE = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async with running_gateway(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "data") as gw:
        api = Api(gw)
        try:
            yield api
        finally:
            await api.close()


def assert_secure(response: httpx.Response, *, cacheable: bool = False) -> None:
    where = response.request.url.path
    for name, value in EVERYWHERE.items():
        assert response.headers.get(name) == value, (where, name, response.headers)
    policy = response.headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
    assert directives["default-src"] == ["'self'"], policy
    assert directives["script-src"] == ["'self'"], policy
    assert directives["frame-ancestors"] == ["'none'"], policy
    assert "unsafe-eval" not in policy
    if where != "/api/v1/docs":  # Swagger UI's inline styles; its scripts are files
        assert "unsafe-inline" not in policy, policy
    assert directives["style-src"][0] == "'self'", policy
    if not cacheable:
        assert response.headers.get("cache-control") == "no-store", (where, response.headers)


async def test_api_and_error_responses_carry_the_headers(web: Api) -> None:
    human = await web.human("jianf")
    anonymous = web.client()
    responses = [
        await human.get("/api/v1/me"),
        await human.get("/api/v1/me/mail/inbox"),
        await human.post(HUMAN_SEND, json={"to": "jianf@", "subject": "s", "body": "b"}),
        await anonymous.get("/api/v1/me"),  # 401
        await anonymous.get("/api/v1/no-such-route"),  # 404
        await human.post(HUMAN_SEND, json={"to": 1}),  # 422
        await human.post(HUMAN_SEND, json={}, headers={"Origin": "https://evil.example"}),  # 403
        await human.post(HUMAN_SEND, content=b"x" * 2_000_000),  # 413, before the app
        await anonymous.get("/api/v1/openapi.json"),
        await anonymous.get("/"),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 401, 404, 422, 403, 413, 200, 200]
    *api_responses, shell = responses
    for response in api_responses:
        assert_secure(response)
    # The web UI's page holds no personal data: revalidated (a new build is seen at
    # once) rather than never stored; everything else of the headers holds.
    assert_secure(shell, cacheable=True)
    assert shell.headers["cache-control"] == "no-cache"


async def test_the_docs_are_served_locally_without_inline_script(web: Api) -> None:
    client = web.client()
    page = await client.get("/api/v1/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert_secure(page)
    html = page.text
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert len(scripts) == 2
    assert all('src="' in attributes and not body.strip() for attributes, body in scripts)
    assert "style=" not in html and "<style" not in html and " on" not in html.lower()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert not [a for a in assets if "//" in a], assets  # nothing from another origin
    kinds = {}
    for asset in assets:
        response = await client.get(asset)
        assert response.status_code == 200, asset
        assert response.content, asset
        kinds[asset.rsplit(".", 1)[-1]] = response.headers["content-type"]
        assert_secure(response, cacheable="docs-assets" in asset)
    assert "javascript" in kinds["js"] and kinds["css"].startswith("text/css")
    # The start script points Swagger UI at our own OpenAPI document.
    assert 'data-openapi-url="/api/v1/openapi.json"' in html
    start = await client.get("/api/v1/docs/start.js")
    assert "SwaggerUIBundle(" in start.text and "dataset.openapiUrl" in start.text


async def test_an_sse_stream_gets_the_headers_and_still_streams(web: Api) -> None:
    agent = await web.agent("builder")
    human = await web.human("jianf")
    async with open_stream(agent) as stream:
        assert_secure(stream.response)
        sent = ok(
            await human.post(HUMAN_SEND, json={"to": "builder@", "subject": "live", "body": "b"})
        )
        event = await stream.next_of("new_mail")
        assert event.json["mail_id"] == sent["mail_id"]
        second = ok(
            await human.post(HUMAN_SEND, json={"to": "builder@", "subject": "more", "body": "b"})
        )
        assert (await stream.next_of("new_mail")).json["mail_id"] == second["mail_id"]


async def test_a_trailing_slash_redirect_names_no_host(web: Api) -> None:
    """The redirect to the route one slash away is by path: a forged `Host` is not
    reflected, and a client following it reaches the route on the host it asked."""
    human = await web.human("jianf")
    forged = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
    moved = await human.get("/api/v1/sessions/?limit=5", headers=forged)
    assert moved.status_code == 307, moved.text
    assert moved.headers["location"] == "/api/v1/sessions?limit=5"
    posted = await web.client().post("/api/v1/mail/send/", json={}, headers=forged)
    assert posted.status_code == 307, posted.text
    assert posted.headers["location"] == "/api/v1/mail/send"
    followed = await human.get("/api/v1/sessions/", follow_redirects=True)
    assert followed.status_code == 200, followed.text
    assert followed.url.path == "/api/v1/sessions"
    assert (await human.get("/api/v1/no-such-thing/")).status_code == 404

"""The web UI served by the gateway: the build at `/`, SPA fallback, and the API untouched.

A tiny fake build stands in for `web/dist`, so the test needs no Node.js.
"""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from api import web_ui
from tests.support.gateway import running_gateway
from tests.support.http import ok, refused

INDEX = (
    '<!doctype html><title>AgentMail</title><script type="module" src="/assets/app-1a2b.js">'
    "</script>"
)
SCRIPT = "console.log('agentmail')"
GZIPPED = gzip.compress(SCRIPT.encode(), mtime=0)
BROTLI = b"\x8b brotli stand-in"  # served as it is: the test only reads it back raw


@pytest.fixture
def fake_dist(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(INDEX)
    (dist / "assets" / "app-1a2b.js").write_text(SCRIPT)
    (dist / "assets" / "app-1a2b.js.gz").write_bytes(GZIPPED)
    (dist / "assets" / "app-1a2b.js.br").write_bytes(BROTLI)
    (dist / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path / "secret.txt").write_text("not for the web")
    return dist


async def _client(
    tmp_path: Path, dist: Path | None, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setattr(web_ui, "find_dist", lambda: dist)
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with (
        running_gateway(url, tmp_path / "data", background_jobs=False) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url, timeout=15.0) as client,
    ):
        yield client


@pytest.fixture
async def built(
    tmp_path: Path, fake_dist: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client(tmp_path, fake_dist, monkeypatch):
        yield client


@pytest.fixture
async def unbuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client(tmp_path, None, monkeypatch):
        yield client


async def test_pages_get_the_index(built: httpx.AsyncClient) -> None:
    for path in ("/", "/inbox", "/inbox/xyz", "/conversations/s1", "/decisions/a.b"):
        response = await built.get(path)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["content-type"].startswith("text/html")
        assert response.text == INDEX
        assert response.headers["cache-control"] == "no-cache"
    head = await built.head("/inbox/xyz")
    assert head.status_code == 200
    assert head.content == b""


async def test_build_files_are_served_and_assets_cached_long(built: httpx.AsyncClient) -> None:
    response = await built.get("/assets/app-1a2b.js")
    assert response.status_code == 200
    assert response.text == SCRIPT
    assert "javascript" in response.headers["content-type"]
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    # A missing asset is a 404, not the index (a stale page must not run HTML as JS).
    refused(await built.get("/assets/gone-0000.js"), 404, "not_found")
    favicon = await built.get("/favicon.svg")
    assert favicon.status_code == 200
    assert favicon.text.startswith("<svg")
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt"):
        assert "not for the web" not in (await built.get(path)).text, path


async def _raw(client: httpx.AsyncClient, path: str, encoding: str) -> tuple[httpx.Response, bytes]:
    async with client.stream("GET", path, headers={"Accept-Encoding": encoding}) as response:
        return response, b"".join([chunk async for chunk in response.aiter_raw()])


async def test_assets_are_served_from_the_compressed_copy_the_client_accepts(
    built: httpx.AsyncClient,
) -> None:
    for encoding, coding, body in (
        ("gzip, deflate, br, zstd", "br", BROTLI),
        ("gzip", "gzip", GZIPPED),
        ("br;q=0, gzip;q=0.5", "gzip", GZIPPED),
        ("identity", None, SCRIPT.encode()),
        ("br;q=0", None, SCRIPT.encode()),
    ):
        response, raw = await _raw(built, "/assets/app-1a2b.js", encoding)
        assert response.status_code == 200, encoding
        assert response.headers.get("content-encoding") == coding, encoding
        assert raw == body, encoding
        assert int(response.headers["content-length"]) == len(body)
        assert "javascript" in response.headers["content-type"], encoding
        assert response.headers["vary"] == "Accept-Encoding"
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    etag = (await _raw(built, "/assets/app-1a2b.js", "br"))[0].headers["etag"]
    again = await built.get(
        "/assets/app-1a2b.js", headers={"Accept-Encoding": "br", "If-None-Match": etag}
    )
    assert again.status_code == 304


async def test_the_api_is_untouched(built: httpx.AsyncClient) -> None:
    assert ok(await built.get("/api/v1/health"))["status"] == "ok"
    refused(await built.get("/api/v1/nope"), 404, "not_found")
    refused(await built.get("/api/v1"), 404, "not_found")
    refused(await built.post("/api/v1/nope", json={}), 404, "not_found")
    refused(await built.delete("/api/v1/health"), 405, "method_not_allowed")
    refused(await built.get("/api/v1/me"), 401, "unauthorized")
    paths = ok(await built.get("/api/v1/openapi.json"))["paths"]
    assert "/" not in paths
    # Only GET and HEAD fall back to the index.
    refused(await built.post("/inbox", json={}), 404, "not_found")


async def test_without_a_build_the_home_page_says_how_to_build(unbuilt: httpx.AsyncClient) -> None:
    response = await unbuilt.get("/")
    assert response.status_code == 200
    assert "make run" in response.text
    assert "npm ci &amp;&amp; npm run build" in response.text
    refused(await unbuilt.get("/inbox/xyz"), 404, "not_found")
    assert ok(await unbuilt.get("/api/v1/health"))["status"] == "ok"


def test_find_dist_prefers_the_packaged_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged, checkout = tmp_path / "web_dist", tmp_path / "web" / "dist"
    monkeypatch.setattr(web_ui, "_PACKAGED", packaged)
    monkeypatch.setattr(web_ui, "_CHECKOUT", checkout)
    assert web_ui.find_dist() is None
    checkout.mkdir(parents=True)
    (checkout / "index.html").write_text(INDEX)
    assert web_ui.find_dist() == checkout
    packaged.mkdir()
    (packaged / "index.html").write_text(INDEX)
    assert web_ui.find_dist() == packaged

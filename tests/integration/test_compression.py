"""Compressed answers from a real gateway (api/compression.py): a list is gzipped for a
client that accepts it, and nothing is that must not be (small answers, SSE, an issued
key, a login). The bytes are read raw, as they crossed the wire."""

from __future__ import annotations

import gzip
import json
from typing import Any

import httpx

from tests.integration.test_imap_mailboxes import agent_mails
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok

INBOX = "/api/v1/me/mail/inbox"


async def _raw(
    client: httpx.AsyncClient, method: str, url: str, encoding: str, **kwargs: Any
) -> tuple[httpx.Response, bytes]:
    headers = {"Accept-Encoding": encoding}
    async with client.stream(method, url, headers=headers, **kwargs) as response:
        return response, b"".join([chunk async for chunk in response.aiter_raw()])


async def test_a_list_is_gzipped_for_a_client_that_accepts_it(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    for number in range(8):
        await agent_mails(builder, f"Report {number} on the build of the week")
    plain, plain_bytes = await _raw(jianf, "GET", INBOX, "identity")
    assert "content-encoding" not in plain.headers
    assert len(plain_bytes) > 1024
    zipped, zipped_bytes = await _raw(jianf, "GET", INBOX, "br;q=0, gzip")
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["vary"] == "accept-encoding"
    assert int(zipped.headers["content-length"]) == len(zipped_bytes) < len(plain_bytes)
    assert json.loads(gzip.decompress(zipped_bytes)) == json.loads(plain_bytes)
    assert zipped.headers["cache-control"] == "no-store"  # the security headers stay
    refused, _ = await _raw(jianf, "GET", INBOX, "gzip;q=0")
    assert "content-encoding" not in refused.headers


async def test_small_answers_streams_keys_and_logins_are_not_compressed(api: Api) -> None:
    jianf = await api.human("jianf")
    health, _ = await _raw(jianf, "GET", "/api/v1/health", "gzip")
    assert "content-encoding" not in health.headers
    issued, issued_bytes = await _raw(
        jianf, "POST", "/api/v1/me/keys", "gzip", json={"lifecycle": "permanent"}
    )
    assert issued.status_code == 201
    assert "content-encoding" not in issued.headers
    assert json.loads(issued_bytes)["key"]
    login, _ = await _raw(
        api.client(),
        "POST",
        "/api/v1/auth/login",
        "gzip",
        json={"username": "jianf", "password": PASSWORD},
    )
    assert "content-encoding" not in login.headers
    stream_headers = {"Accept-Encoding": "gzip"}
    async with jianf.stream("GET", "/api/v1/events/stream", headers=stream_headers) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in stream.headers
    assert ok(await jianf.get("/api/v1/me"))["user"]["name"] == "jianf"

"""A download answers one byte range (RFC 9110 §14), from files and from the object store.

`Range: bytes=a-b`, `a-` and `-n` get `206` with `Content-Range` and exactly those
bytes (a range across several chunks of the store's reads too); a range beyond the
end gets `416` with `Content-Range: bytes */size`; several ranges, or an `If-Range`
that is not the content's ETag, get the whole content. curl, told to resume a cut
download (`-C -`), asks for the rest and ends with the whole file.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.http import ok

CONTENT = os.urandom(700_000)  # several of either store's read chunks (256 KiB)
SIZE = len(CONTENT)
ETAG = f'"{hashlib.sha256(CONTENT).hexdigest()}"'


@pytest.fixture(params=["files", "s3"])
async def uploaded(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """An agent's client and the path of its upload, on the blob store of the param."""
    settings = {}
    if request.param == "s3":
        settings = request.getfixturevalue("seaweedfs").settings(f"ranges-{uuid.uuid4().hex}")
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            agent = await api.agent("builder")
            upload = ok(await agent.post("/api/v1/attachments", files={"file": ("a.bin", CONTENT)}))
            yield agent, f"/api/v1/attachments/{upload['attachment_id']}"
        finally:
            await api.close()


RANGES = [  # (Range, first byte, last byte)
    ("bytes=0-99", 0, 99),
    ("bytes=200000-600000", 200_000, 600_000),  # across chunks
    ("bytes=690000-", 690_000, SIZE - 1),
    ("bytes=-500", SIZE - 500, SIZE - 1),
    ("bytes=-2000000", 0, SIZE - 1),  # a suffix longer than the content: all of it
    (f"bytes={SIZE - 10}-{SIZE + 1000}", SIZE - 10, SIZE - 1),  # cut at the end
    (f"bytes={SIZE - 1}-{SIZE - 1}", SIZE - 1, SIZE - 1),
]


async def test_one_range_is_answered_with_206(uploaded: tuple[httpx.AsyncClient, str]) -> None:
    client, path = uploaded
    for asked, start, end in RANGES:
        response = await client.get(path, headers={"Range": asked})
        assert response.status_code == 206, (asked, response.text)
        assert response.content == CONTENT[start : end + 1], asked
        assert response.headers["content-range"] == f"bytes {start}-{end}/{SIZE}"
        assert response.headers["content-length"] == str(end - start + 1)
        assert response.headers["accept-ranges"] == "bytes"


async def test_the_whole_content_unsatisfiable_and_ignored_ranges(
    uploaded: tuple[httpx.AsyncClient, str],
) -> None:
    client, path = uploaded
    whole = await client.get(path)
    assert whole.status_code == 200 and whole.content == CONTENT
    assert whole.headers["accept-ranges"] == "bytes" and whole.headers["etag"] == ETAG
    for beyond in (f"bytes={SIZE}-", f"bytes={SIZE + 5}-{SIZE + 9}", "bytes=-0"):
        refused = await client.get(path, headers={"Range": beyond})
        assert refused.status_code == 416, beyond
        assert refused.headers["content-range"] == f"bytes */{SIZE}"
        assert refused.json()["error"]["code"] == "range_not_satisfiable"
    ignored = [
        {"Range": "bytes=0-1,5-6"},  # several ranges: the whole content (§14.2)
        {"Range": "items=0-1"},
        {"Range": "bytes=9-2"},
        {"Range": "bytes=0-99", "If-Range": '"another"'},
    ]
    for headers in ignored:
        response = await client.get(path, headers=headers)
        assert (response.status_code, response.content) == (200, CONTENT), headers
    still = await client.get(path, headers={"Range": "bytes=0-9", "If-Range": ETAG})
    assert (still.status_code, still.content) == (206, CONTENT[:10])


async def test_curl_resumes_a_cut_download(
    uploaded: tuple[httpx.AsyncClient, str], tmp_path: Path
) -> None:
    client, path = uploaded
    target = tmp_path / "a.bin"
    target.write_bytes(CONTENT[:123_456])  # what a cut download left
    command = [
        "curl", "--silent", "--show-error", "--fail", "--max-time", "30", "--continue-at", "-",
        "--header", f"Authorization: {client.headers['authorization']}",
        "--output", str(target), f"{client.base_url}{path}",
    ]  # fmt: skip
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == CONTENT

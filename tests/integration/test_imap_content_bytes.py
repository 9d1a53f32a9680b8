"""IMAP's content cache keeps the rendered bytes of mails whose parsed content it
evicted (imap_view/content_cache.py): a folder larger than the parsed part of the
cache, read twice in order (mbsync's pull), is read from the store and rendered once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.integration.test_tree_statements import statements
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.raw_imap import RawImap

MAILS = 40  # ~60 KB each parsed: more than the 0.75 MiB a 1 MiB cache keeps parsed


@pytest.fixture
async def small_cache_api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    settings = {"background_jobs": False, "imap_content_cache_mib": 1}
    async with running_gateway(database_url, tmp_path / "d", **settings) as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def test_a_pull_larger_than_the_parsed_cache_renders_each_mail_once(
    small_cache_api: Api,
) -> None:
    api = small_cache_api
    await api.human("jianf")
    senders = [await api.agent("builder"), await api.agent("reviewer")]  # 20 mails each
    text = "The staging health check fails after the deploy; *please* look at it. " * 12
    for n in range(MAILS):
        body = {"to": "jianf@", "subject": f"mail {n}", "body": f"{n}: {text}"}
        ok(await senders[n % 2].post("/api/v1/mail/send", json=body))
    store = api.gateway.store
    assert store is not None
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        await raw.command(b"s SELECT INBOX")
        pull = b"".join(b"f%d UID FETCH %d (BODY.PEEK[])\r\n" % (n, n) for n in range(1, MAILS + 1))
        first: list[bytes] = []
        await raw.send(pull)
        for n in range(1, MAILS + 1):
            first += await raw.tagged(b"f%d" % n)
        with statements(store) as seen:
            await raw.send(pull)
            again = []
            for n in range(1, MAILS + 1):
                again += await raw.tagged(b"f%d" % n)
        assert again == first  # the same bytes, parsed again from the kept ones
        assert sum(b" FETCH (" in line for line in again) == MAILS
        # No mail loaded from the store to be rendered again (`load_many`: the mails'
        # columns, their attachments). On PostgreSQL the folder's changes and the content
        # keys may be read again once their freshness ages out (imap_view/freshness.py).
        loads = [s for s in seen if "mails.from_name" in s or "FROM attachments" in s]
        assert loads == [], loads
    finally:
        await raw.close()

"""IMAP's content cache keeps the rendered bytes of mails whose parsed content it
evicted (imap_view/content_cache.py): a folder larger than the parsed part of the
cache, read twice in order (mbsync's pull), is read from the store and rendered once;
and a FETCH of whole messages only takes their bytes as they are, unparsed."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from tests.integration.test_tree_statements import statements
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.raw_imap import RawImap

MAILS = 40  # ~60 KB each parsed: more than the 0.75 MiB a 1 MiB cache keeps parsed


@pytest.fixture
async def small_cache_api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    async with running_gateway(
        database_url, tmp_path / "d", background_jobs=False, imap_content_cache_mib=1
    ) as gateway:
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


def _literal(lines: list[bytes]) -> bytes:
    """The `BODY[] {n}` literal of one FETCH response."""
    joined = b"".join(lines)
    found = re.search(rb"BODY\[\] \{(\d+)\}\r\n", joined)
    assert found is not None, joined[:300]
    return joined[found.end() : found.end() + int(found.group(1))]


def _parses() -> float:
    """IMAP's read-time parses so far (imap_view/contents.py counts them for /metrics)."""
    return REGISTRY.get_sample_value("agentmail_imap_message_parses_total") or 0.0


async def test_a_fetch_of_whole_messages_parses_none_and_writes_the_same_bytes(api: Api) -> None:
    """mbsync's `UID FETCH n (BODY.PEEK[])` writes the mail's bytes, which it gets
    without parsing them (imap_view/contents.py `bytes_only`); a FETCH that needs the
    parsed content too writes the same bytes."""
    await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(3):
        body = {"to": "jianf@", "subject": f"mail {n}", "body": f"number {n}, *emphasis*"}
        ok(await builder.post("/api/v1/mail/send", json=body))
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        await raw.command(b"s SELECT INBOX")
        before = _parses()
        whole = [await raw.command(b"w%d UID FETCH %d (BODY.PEEK[])" % (n, n)) for n in (1, 2)]
        sized = await raw.command(b"z UID FETCH 3 (UID RFC822.SIZE FLAGS BODY.PEEK[])")
        assert _parses() == before
        assert re.search(rb"RFC822\.SIZE %d " % len(_literal(sized)), b"".join(sized))
        for n, lines in zip((1, 2, 3), [*whole, sized], strict=True):
            again = await raw.command(b"e%d UID FETCH %d (ENVELOPE BODY.PEEK[])" % (n, n))
            assert _literal(again) == _literal(lines)
        assert _parses() == before + 3  # the parsed path, for the ENVELOPE
    finally:
        await raw.close()

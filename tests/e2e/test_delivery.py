"""What crosses the wire to a browser (api/compression.py): the web UI's files from
the build's brotli or gzip copies, the inbox list gzipped, and what must not be
compressed (the event stream, an issued key) left as it is. The JavaScript the first
page loads must stay under its budget as sent.

The page is loaded again with the browser's cache off (DevTools protocol), so every
file is fetched; its size as sent is its Content-Length.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Response, expect

from tests.e2e.desk import Desk

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

JAVASCRIPT_BUDGET = 150 * 1024  # bytes of JavaScript on the wire for the first page
COMPRESSED = {"br", "gzip"}


async def test_the_first_page_arrives_compressed_and_within_budget(desk: Desk) -> None:
    await desk.seed_inbox(60)
    page = await desk.open()
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    responses: list[Response] = []

    def seen(response: Response) -> None:
        responses.append(response)

    page.on("response", seen)
    await page.reload()
    await expect(page.locator("[data-mail-id]").first).to_be_visible()

    scripts = [r for r in responses if "/assets/" in r.url and r.url.endswith(".js")]
    assert scripts, [r.url for r in responses]
    on_the_wire = 0
    for script in scripts:
        headers = await script.all_headers()
        size = int(headers["content-length"])  # of the body as sent (RFC 9110 §8.6)
        if size >= 1024:  # smaller files are not worth a compressed copy
            assert headers.get("content-encoding") in COMPRESSED, (script.url, headers)
        on_the_wire += size
    print(f"JavaScript on the wire: {on_the_wire / 1024:.1f} KB in {len(scripts)} files")
    assert on_the_wire <= JAVASCRIPT_BUDGET

    [inbox] = [r for r in responses if "/api/v1/me/mail/inbox" in r.url][:1]
    assert (await inbox.all_headers()).get("content-encoding") == "gzip"
    streams = [r for r in responses if r.url.endswith("/api/v1/events/stream")]
    for stream in streams:
        assert "content-encoding" not in await stream.all_headers()

"""Search in the browser (GET /me/search behind the search box), at both sizes.

A word of a body, `from:`, Chinese (`登录`) and a path fragment (`/srv/app`) each
find exactly the mail they should; the same words in a conversation the user
is not part of are never found (the participant rule of the Security issue).
"""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.e2e.desk import Desk, Size
from tests.support.http import AGENT_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


RESULT_IDS = """() => [...document.querySelectorAll(
  '[role=region][aria-label="Found mail"] [data-mail-id]')].map((row) => row.dataset.mailId)"""


async def search(page: Page, query: str, expected: set[str]) -> None:
    """Type `query` in the search box; the results become exactly the `expected` mail ids
    (the previous results stay on screen until the new ones arrive, so wait for them)."""
    await page.get_by_role("searchbox", name="Search").fill(query)
    wanted = sorted(expected)
    try:
        await page.wait_for_function(
            f"(wanted) => JSON.stringify(({RESULT_IDS})().sort()) === JSON.stringify(wanted)",
            arg=wanted,
        )
    except PlaywrightTimeout:
        found = sorted(await page.evaluate(RESULT_IDS))
        raise AssertionError(f"{query!r} found {found}, expected {wanted}") from None
    noun = "result" if len(expected) == 1 else "results"
    status = page.get_by_role("region", name="Found mail").get_by_role("status")
    await expect(status).to_have_text(f"{len(expected)} {noun}")


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_search_finds_words_senders_chinese_and_paths(desk: Desk, size: Size) -> None:
    await desk.human()
    scout = await desk.agent("scout", ("app", "/srv/app"))
    auditor = await desk.agent("auditor", ("audit", "/srv/audit"))
    outsider = f"out{desk.unique}"
    await desk.api.human(outsider)

    async def mail(agent: httpx.AsyncClient, to: str, subject: str, body: str) -> str:
        sent = ok(await agent.post(AGENT_SEND, json={"to": to, "subject": subject, "body": body}))
        mail_id: str = sent["mail_id"]
        return mail_id

    me = f"{desk.name}@"
    word = await mail(scout, me, "Flaky test", "The flaky test lives in the zanzibar module.")
    chinese = await mail(auditor, me, "移动端问题", "登录页面在移动端报错 请看日志")
    path = await mail(scout, me, "Where the logs are", "Logs are under /srv/app/logs/2026-12-01.")
    # The same words in a conversation between the agents and someone else.
    for agent in (scout, auditor):
        await mail(agent, f"{outsider}@", "Not yours", "zanzibar 登录 /srv/app/secret")

    page = await desk.open(size)
    await expect(page.get_by_role("region", name="Mail")).to_be_visible()
    await search(page, "zanzibar", {word})
    await search(page, f"from:{desk.agent_name('auditor')}", {chinese})
    await search(page, "登录", {chinese})
    await search(page, "/srv/app", {path})
    await search(page, f"from:{desk.agent_name('scout')}", {word, path})

    results = page.get_by_role("region", name="Found mail")
    await results.locator(f"[data-mail-id='{path}']").click()
    await expect(page.locator("#mail-subject")).to_have_text("Where the logs are")

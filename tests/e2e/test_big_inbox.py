"""An inbox of 10,000 mails stays responsive: the list is virtualised and pages in.

The mails are seeded through the store's bulk path (tests/support/seeding.py,
about a second), not 10,000 REST calls. The test prints the time to the first
row of the list and the time to scroll to the end (the oldest mail), and asserts
that fewer than 200 mail rows are in the DOM at any moment on the way: a
MutationObserver in the page counts them after every change.
"""

from __future__ import annotations

import time

import pytest
from playwright.async_api import expect

from tests.e2e.desk import Desk
from tests.support.http import ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

MAILS = 10_000
MAX_ROWS = 200

COUNT_ROWS = """() => {
  window.__rows = {most: document.querySelectorAll('[data-mail-id]').length};
  new MutationObserver(() => {
    const now = document.querySelectorAll('[data-mail-id]').length;
    if (now > window.__rows.most) window.__rows.most = now;
  }).observe(document.body, {childList: true, subtree: true});
}"""

# Scroll the list to its bottom frame after frame (it grows as pages load) until the
# oldest mail's row is on screen; resolves to the milliseconds it took.
SCROLL_TO_END = """([oldest, limitMs]) => new Promise((resolve, reject) => {
  const list = document.querySelector('[role=region][aria-label=Mail]');
  const started = performance.now();
  const step = () => {
    const row = document.querySelector(`[data-mail-id="${oldest}"]`);
    if (row && row.getBoundingClientRect().bottom <= list.getBoundingClientRect().bottom + 1) {
      resolve(performance.now() - started);
      return;
    }
    if (performance.now() - started > limitMs) {
      reject(new Error(`not at the end after ${limitMs} ms: ${list.scrollHeight} px`));
      return;
    }
    list.scrollTop = list.scrollHeight;
    requestAnimationFrame(step);
  };
  step();
})"""


async def test_a_10000_mail_inbox_scrolls_to_the_end_with_few_rows(desk: Desk) -> None:
    human = await desk.human()
    started = time.perf_counter()
    await desk.seed_inbox(MAILS)
    seeded = time.perf_counter() - started
    listed = ok(await human.get("/api/v1/me/mail/inbox", params={"limit": 1, "offset": MAILS - 1}))
    assert listed["total"] == MAILS
    oldest = listed["mails"][0]["mail_id"]

    page = await desk.open("desktop")
    started = time.perf_counter()
    await page.goto("/inbox")
    await page.evaluate(COUNT_ROWS)
    await expect(page.locator("[data-mail-id]").first).to_be_visible()
    first_paint = time.perf_counter() - started

    scrolled_ms: float = await page.evaluate(SCROLL_TO_END, [oldest, 60_000])
    most: int = await page.evaluate("() => window.__rows.most")
    print(
        f"\n10,000-mail inbox: seeded in {seeded:.1f} s; first row painted "
        f"{first_paint * 1000:.0f} ms after navigation; scrolled to the end in "
        f"{scrolled_ms:.0f} ms; at most {most} mail rows in the DOM"
    )
    assert 0 < most < MAX_ROWS
    await page.locator(f"[data-mail-id='{oldest}']").click()
    await expect(page.locator("#mail-subject")).to_have_text("mail 1")

"""The desk's small things: closing a conversation with Undo, images that are never
fetched, status chips on one line, and an offline dot that shows in the dark.

Only the axe test's context bypasses the CSP (to inject axe); the others run under
the gateway's real policy.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import ConsoleMessage, Request, expect

from core.identity.agents import mark_silent_agents_offline
from tests.e2e.axe import serious_violations
from tests.e2e.desk import Desk, Theme
from tests.e2e.probes import settled
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_close_conversation_then_undo_reopens_it(desk: Desk) -> None:
    human = await desk.human()
    await desk.agent("closer", ("app", "/srv/app"))
    sent = ok(
        await human.post(
            HUMAN_SEND,
            json={"to": f"{desk.agent_name('closer')}@app.new", "subject": "Tidy up", "body": "."},
        )
    )
    page = await desk.open("phone", path=f"/sent/{sent['mail_id']}")
    header = page.get_by_role("region", name="Conversation", exact=True)
    await expect(header.get_by_text("Active", exact=True)).to_be_visible()

    await header.get_by_role("button", name="Close conversation").click()
    # The chip shows the gateway's answer (the cache is patched from the response).
    await expect(header.get_by_text("Closed", exact=True)).to_be_visible()
    toast = page.get_by_role("status").filter(has_text="Conversation closed.")
    # Undo at once: the toast goes by itself after a while (lib/toast.ts TOAST_MS).
    await toast.get_by_role("button", name="Undo").click()
    await expect(header.get_by_text("Active", exact=True)).to_be_visible()
    await expect(header.get_by_role("button", name="Close conversation")).to_be_visible()
    await expect(toast).to_have_count(0)
    session = f"/api/v1/me/sessions/{sent['session_id']}"
    assert ok(await human.get(session))["session"]["status"] == "active"


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_undo_toast_passes_axe(desk: Desk, theme: Theme) -> None:
    """axe (contrast included) with the toast up; the pointer rests on Undo meanwhile,
    which holds the toast (lib/toast.ts TOAST_MS would end it on a slow machine)."""
    human = await desk.human()
    await desk.agent("toaster", ("app", "/srv/app"))
    to = f"{desk.agent_name('toaster')}@app.new"
    sent = ok(await human.post(HUMAN_SEND, json={"to": to, "subject": "Toast", "body": "."}))
    page = await desk.open("phone", theme, bypass_csp=True, path=f"/sent/{sent['mail_id']}")
    header = page.get_by_role("region", name="Conversation", exact=True)
    await header.get_by_role("button", name="Close conversation").click()
    toast = page.get_by_role("status").filter(has_text="Conversation closed.")
    await toast.get_by_role("button", name="Undo").hover()
    failing = await serious_violations(page, f"undo toast ({theme})")
    await desk.screenshot(page, "undo-toast", "phone", theme)
    await expect(toast.get_by_role("button", name="Undo")).to_be_visible()
    assert not failing, "\n".join(failing)


async def test_a_remote_image_is_a_placeholder_and_never_requested(desk: Desk) -> None:
    await desk.human()
    agent = await desk.agent("painter", ("app", "/srv/app"))
    body = (
        "The chart:\n\n![load chart](https://images.example.com/chart.png?u=1)\n\nand ![](/own.png)"
    )
    mail = ok(
        await agent.post(AGENT_SEND, json={"to": f"{desk.name}@", "subject": "Chart", "body": body})
    )
    page = await desk.open("desktop", path="/inbox")
    errors: list[str] = []
    asked: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    def on_request(request: Request) -> None:
        if "images.example.com" in request.url or request.url.endswith("/own.png"):
            asked.append(request.url)

    page.on("console", on_console)
    page.on("request", on_request)
    await page.locator(f"[data-mail-id='{mail['mail_id']}']").click()
    article = page.get_by_role("article")
    await expect(
        article.get_by_text("Image from images.example.com blocked · load chart")
    ).to_be_visible()
    host = page.url.split("/")[2]
    await expect(article.get_by_text(f"Image from {host} blocked")).to_be_visible()
    assert await article.locator("img").count() == 0
    assert not asked, asked
    assert not errors, errors


CHIP_LINES = """() => [...document.querySelectorAll('[data-chip]')].map((chip) => {
  const range = document.createRange();
  range.selectNodeContents(chip);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return {text: chip.textContent, lines: tops.size};
})"""


async def test_status_chips_stay_on_one_line_at_320_px(desk: Desk) -> None:
    await desk.human()
    agent = await desk.agent("asker", ("app", "/srv/app"))
    for n in range(3):
        ok(
            await agent.post(
                "/api/v1/permission/request",
                json={
                    "to": f"{desk.name}@",
                    "question": f"May I run migration number {n} on the production database now?",
                    "options": ["approve", "reject"],
                },
            )
        )
    page = await desk.open("small", path="/inbox")
    await expect(page.locator("[data-chip]").first).to_be_visible()
    chips: list[dict[str, Any]] = await page.evaluate(CHIP_LINES)
    assert chips and all(chip["lines"] == 1 for chip in chips), chips


# The contrast of the dot against the card it sits on: its border when hollow (offline),
# its fill when online; WCAG 1.4.11 asks 3:1 for a graphic that carries meaning.
DOT_CONTRAST = """(label) => {
  const dot = document.querySelector(`[role=img][aria-label="${label}"]`);
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const clear = (el) => getComputedStyle(el).backgroundColor === 'rgba(0, 0, 0, 0)';
  let under = dot.parentElement;
  while (clear(under)) under = under.parentElement;
  const style = getComputedStyle(dot);
  const hollow = clear(dot);
  const mark = lum(rgb(hollow ? style.borderTopColor : style.backgroundColor));
  const ground = lum(rgb(getComputedStyle(under).backgroundColor));
  return (Math.max(mark, ground) + 0.05) / (Math.min(mark, ground) + 0.05);
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_offline_dot_shows_in_both_themes(desk: Desk, theme: Theme) -> None:
    await desk.human()
    online = await desk.agent("awake", ("app", "/srv/app"))
    await desk.agent("asleep", ("app", "/srv/app"))
    # What the gateway's presence sweep does to agents that stopped beating; then one beats.
    store = desk.api.gateway.store
    assert store is not None
    await mark_silent_agents_offline(store, timedelta(0))
    ok(await online.post("/api/v1/agent/heartbeat", json={}))
    page = await desk.open("phone", theme, path="/agents")
    await expect(page.get_by_role("heading", name=desk.agent_name("asleep"))).to_be_visible()
    await settled(page)
    for label in ("Offline", "Online"):
        contrast: float = await page.evaluate(DOT_CONTRAST, label)
        assert contrast >= 3, f"{label} dot in {theme}: contrast {contrast:.2f}"

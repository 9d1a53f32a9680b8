"""Cards are conversations: 150 mails of one conversation are one card, showing the
conversation's latest sender, its plain-text excerpt (no Markdown markers), its unread
mail and the task progress of its newest task list; opening it opens the newest mail.
The list view's rows show the same plain excerpt.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import expect

from tests.e2e.desk import Desk
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

REPLIES = 148  # and the first mail and the last: 150 in the conversation
LAST = "### Status\n\n**Build** passes, see [the log](https://ci.example/1).\n\n"
LAST += "- [x] build\n- [ ] test\n- [ ] ship\n"
PLAIN = "Status Build passes, see the log. build test ship"


async def test_150_mails_of_one_conversation_are_one_card(desk: Desk) -> None:
    human = await desk.human()
    builder = await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    address = f"{desk.agent_name('builder')}@ModelRouter"
    first = ok(
        await human.post(
            HUMAN_SEND,
            json={"to": address, "subject": "Release", "body": "Go", "budget": "unlimited"},
        )
    )
    reply = {"to": f"{desk.name}@", "reply_to": first["mail_id"]}
    for start in range(0, REPLIES, 12):
        await asyncio.gather(
            *(
                builder.post(AGENT_SEND, json={**reply, "body": f"**Step** {n}"})
                for n in range(start, min(start + 12, REPLIES))
            )
        )
    last = ok(await builder.post(AGENT_SEND, json={**reply, "body": LAST}))
    [conversation] = ok(await human.get("/api/v1/me/sessions"))["sessions"]
    assert conversation["mail_count"] == 150

    page = await desk.open()
    await page.get_by_role("button", name="Cards").click()
    cards = page.get_by_role("region", name="Mail").locator("[data-mail-id]")
    await expect(cards).to_have_count(1)
    card = cards.first
    await expect(card).to_have_attribute("data-session-id", first["session_id"])
    await expect(card).to_contain_text(f"{desk.agent_name('builder')}: {PLAIN}")
    await expect(card.locator("[data-tasks]")).to_have_text("1/3")
    await expect(card.locator("[data-unread]")).to_have_text(f"{REPLIES + 1} unread")
    text = await card.inner_text()
    assert "###" not in text and "**" not in text and "](" not in text, text
    await desk.screenshot(page, "cards", "desktop", "light")
    await card.click()
    await expect(page).to_have_url(f"{desk.base_url}/inbox/{last['mail_id']}")

    # The list shows every mail, each with its own plain excerpt.
    await page.get_by_role("button", name="List").click()
    rows = page.get_by_role("region", name="Mail").locator("[data-mail-id]")
    await expect(rows.first).to_contain_text(PLAIN)
    await expect(rows.nth(1)).to_contain_text("Step 147")
    assert "**" not in await rows.nth(1).inner_text()

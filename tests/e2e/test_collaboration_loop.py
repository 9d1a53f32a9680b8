"""The collaboration loop in the browser, at 1440x900 and at 390x844.

A human composes to an agent through the address suggestions; the agent (REST +
SSE, driven by the test) replies and asks permission; the reply and the card
appear without a reload; the human approves with a note and the agent's stream
gets the decision. A second request is decided by an SMTP reply (`1` on the
first line, as a mail client's Reply would send it): the card open in the
browser turns to "decided" live.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.e2e.desk import Desk, Size
from tests.support.gateway import PASSWORD
from tests.support.http import AGENT_SEND, ok
from tests.support.smtp import D, message, send
from tests.support.sse import open_stream

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

REQUEST = "/api/v1/permission/request"


async def compose_to_agent(page: Page, size: Size, typed: str, address: str) -> None:
    """Open the composer, type part of the address, pick the suggestion, write, send."""
    await page.get_by_role("button", name="Compose").click()
    dialog = page.get_by_role("dialog", name="New mail")
    to = dialog.get_by_role("combobox", name="To")
    await to.press_sequentially(typed, delay=20)
    # The address itself (its default conversation), not its `.new` offered first.
    itself = re.compile("^" + re.escape(address) + r"(?!\.)")
    await dialog.get_by_role("option", name=itself).click()
    await expect(to).to_have_value(address)
    await dialog.get_by_label("Subject").fill("Fix the login leak")
    await dialog.get_by_label("Message (Markdown)").fill("The session cookie leaks on **logout**.")
    await dialog.get_by_role("button", name="Send").click()
    await expect(dialog).to_be_hidden()


async def open_row(page: Page, subject: str) -> None:
    """Click the list row of the newest mail with this subject (it must be live there)."""
    row = page.get_by_role("region", name="Mail").get_by_role("button").filter(has_text=subject)
    await row.first.click()
    await expect(page.locator("#mail-subject")).to_have_text(subject)


async def back_to_list(page: Page, size: Size) -> None:
    if size == "phone":
        await page.get_by_role("button", name="Back").click()


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_the_collaboration_loop_without_a_reload(desk: Desk, size: Size) -> None:
    builder = await desk.agent("builder", ("ModelRouter", "/srv/app/model-router"))
    address = f"{desk.agent_name('builder')}@ModelRouter"
    async with open_stream(builder) as agent_stream:
        page = await desk.open(size)
        await page.evaluate("window.__sameDocument = true")
        await compose_to_agent(page, size, desk.agent_name("builder"), address)

        task = (await agent_stream.next_of("new_mail")).json
        assert task["subject"] == "Fix the login leak"
        ok(
            await builder.post(
                AGENT_SEND,
                json={
                    "to": f"{desk.name}@",
                    "subject": "Re: Fix the login leak",
                    "body": "Found it: `logout()` keeps the cookie. I have a patch.",
                    "reply_to": task["mail_id"],
                },
            )
        )
        await open_row(page, "Re: Fix the login leak")
        await expect(page.get_by_role("article")).to_contain_text("keeps the cookie")
        await back_to_list(page, size)

        asked = ok(
            await builder.post(
                REQUEST,
                json={
                    "to": f"{desk.name}@",
                    "question": "May I deploy the patch?",
                    "context": "It changes `auth/session.py` only.",
                    "action": "deploy --service auth --version 1.4.2",
                    "options": ["approve", "reject"],
                    "session_id": task["session_id"],
                },
            )
        )
        await open_row(page, "May I deploy the patch?")
        card = page.get_by_role("region", name="Permission request")
        await expect(card).to_have_attribute("data-state", "open")
        await expect(card).to_contain_text("deploy --service auth --version 1.4.2")
        await card.get_by_label("Note (optional)").fill("Go ahead, watch the error rate.")
        await card.get_by_role("button", name="approve").click()

        decision = (await agent_stream.next_of("permission_decision")).json
        assert decision["mail_id"] == asked["mail_id"]
        assert (decision["state"], decision["decision"], decision["decided_by"]) == (
            "decided",
            "approve",
            desk.name,
        )
        assert decision["note"] == "Go ahead, watch the error rate."
        await expect(card).to_have_attribute("data-state", "decidedHere")
        await expect(card.get_by_role("status")).to_contain_text("approve")
        await back_to_list(page, size)

        second = ok(
            await builder.post(
                REQUEST,
                json={
                    "to": f"{desk.name}@",
                    "question": "May I restart the auth service?",
                    "options": ["approve", "reject"],
                    "session_id": task["session_id"],
                },
            )
        )
        await open_row(page, "May I restart the auth service?")
        await expect(card).to_have_attribute("data-state", "open")
        human = await desk.human()
        request = ok(await human.get(f"/api/v1/me/mail/{second['mail_id']}"))
        reply = message(
            f"{desk.name}@{D}",
            request["from_email"],
            f"Re: {request['subject']}",
            "1\n\nSent from my phone",
            In_Reply_To=request["message_id"],
            References=request["message_id"],
        )
        await send(desk.api, desk.name, PASSWORD, reply)

        decision = (await agent_stream.next_of("permission_decision")).json
        assert (decision["mail_id"], decision["decision"]) == (second["mail_id"], "approve")
        await expect(card).to_have_attribute("data-state", "decidedElsewhere")
        await expect(card.get_by_role("status")).to_contain_text(f"by {desk.name}")
        assert await page.evaluate("window.__sameDocument") is True

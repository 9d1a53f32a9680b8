"""Imported mail from outside the gateway, and an agent's page, in the browser.

An mbox with an outside sender comes in through `agentmail import`: the desk shows the
sender by address with an "outside" mark, `from:bob` finds the mail, and a reply says
why the outside sender is left out (or that nobody is left to reply to) instead of
failing. The agent page lists more than one page of an agent's conversations and its
turns, decisions and failures.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.desk import Desk
from tests.support.cli import agentmail, summary
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok
from tests.support.mail_archive import DOMAIN, message, write_mbox

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

WHEN = datetime(2024, 6, 3, 8, tzinfo=UTC)


async def _import(desk: Desk, tmp_path: Path, agent_address: str) -> None:
    me, tag = f"{desk.name}@{DOMAIN}", desk.unique
    path = tmp_path / "outside.mbox"
    write_mbox(
        path,
        [
            message(f"<invoice{tag}@mail.example>", "bob@example.com", [me], f"Invoice {tag}",
                    "Please pay invoice 7.", WHEN),
            message(f"<quote{tag}@mail.example>", "bob@example.com", [me], f"Quote {tag}",
                    "Here is the quote.", WHEN + timedelta(hours=1), cc=[agent_address]),
        ],
    )  # fmt: skip
    gateway = desk.api.gateway
    result = await agentmail(
        "import", str(path), db=gateway.settings.database_url, data_dir=gateway.settings.data_dir
    )
    assert summary(result.output)["imported"] == 2, result.output


async def _open_mail(page: Page, subject: str) -> None:
    await page.get_by_role("region", name="Mail").get_by_text(subject).click()
    await expect(page.locator("#mail-subject")).to_have_text(subject)


async def test_an_outside_sender_is_shown_found_and_replies_explained(
    desk: Desk, tmp_path: Path
) -> None:
    await desk.human()
    await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    agent = desk.agent_name("builder")
    await _import(desk, tmp_path, f"{agent}+ModelRouter@{DOMAIN}")
    page = await desk.open()

    rows = page.get_by_role("region", name="Mail")
    await expect(rows.get_by_text("bob@example.com")).to_have_count(2)
    await expect(rows.get_by_text("(outside the gateway)")).to_have_count(2)
    await expect(page.get_by_text("mailto:")).to_have_count(0)

    # Nobody of the gateway's but me on the mail: the reply box is an explanation.
    await _open_mail(page, f"Invoice {desk.unique}")
    pane = page.locator("article[aria-labelledby=mail-subject]")
    await expect(pane.locator("dd").first).to_contain_text("bob@example.com")
    await expect(pane.locator("[data-outside]").first).to_be_visible()
    note = pane.get_by_test_id("outside-reply-note")
    await expect(note).to_contain_text("there is no one to reply to")

    # An agent on the mail: the reply goes to it and says who is left out.
    await _open_mail(page, f"Quote {desk.unique}")
    await page.keyboard.press("r")
    dialog = page.get_by_role("dialog", name="Reply")
    await expect(dialog.get_by_role("combobox", name="To")).to_have_value(
        re.compile(rf"^{agent}@ModelRouter")
    )
    await expect(dialog.get_by_test_id("outside-reply-note")).to_contain_text(
        "goes only to the people and agents on the gateway"
    )
    await dialog.get_by_label("Message (Markdown)").fill("Looks right?")
    await dialog.get_by_role("button", name="Send").click()
    await expect(dialog).to_be_hidden()
    sessions = ok(await (await desk.human()).get("/api/v1/me/sessions"))["sessions"]
    quote = next(s for s in sessions if s["subject"] == f"Quote {desk.unique}")
    assert quote["status"] == "active" and quote["mail_count"] == 2

    box = page.get_by_role("searchbox", name="Search")
    found = page.get_by_role("region", name="Found mail")
    for query in ("from:bob", "from:bob@example.com"):
        await box.fill(query)
        await expect(found.get_by_role("status")).to_have_text("2 results")
    await desk.screenshot(page, "outside-sender", "desktop", "light")


async def _conversations(desk: Desk, agent: str, count: int) -> list[str]:
    human = await desk.human()
    made: list[str] = []
    for n in range(count):
        body: dict[str, Any] = {"to": f"{agent}@ws.new", "subject": f"Task {n:02}", "body": "go"}
        made.append(ok(await human.post(HUMAN_SEND, json=body))["session_id"])
    return made


async def test_the_agent_page_lists_every_conversation_and_the_activity(desk: Desk) -> None:
    await desk.human()
    builder = await desk.agent("builder", ("ws", "/srv/ws"))
    agent = desk.agent_name("builder")
    sessions = await _conversations(desk, agent, 23)
    me = f"{desk.name}@"
    done = {"to": me, "subject": "Done 22", "body": "All **done**.", "session_id": sessions[-1]}
    ok(await builder.post(AGENT_SEND, json=done))
    failed = {"to": me, "subject": "Turn failed", "body": "timed out", "mail_type": "turn_failed",
              "session_id": sessions[0]}  # fmt: skip
    ok(await builder.post(AGENT_SEND, json=failed))
    ask = {"to": me, "question": "Deploy?", "options": ["yes", "no"], "session_id": sessions[1]}
    asked = ok(await builder.post("/api/v1/permission/request", json=ask))
    decide = {"mail_id": asked["mail_id"], "decision": "yes"}
    ok(await (await desk.human()).post("/api/v1/me/permission/decide", json=decide))

    page = await desk.open(path="/agents")
    await page.get_by_role("link", name=agent, exact=True).click()
    await expect(page).to_have_url(re.compile(rf"/agents/{agent}$"))
    await expect(page.get_by_role("heading", name="23 conversations with you")).to_be_visible()
    rows = page.get_by_test_id("agent-conversations").get_by_role("listitem")
    await expect(rows).to_have_count(20)
    pages = page.get_by_role("navigation", name="Pages").first
    await expect(pages).to_contain_text("1\N{EN DASH}20 of 23")
    await pages.get_by_role("button", name="Next").click()
    await expect(pages).to_contain_text("21\N{EN DASH}23 of 23")
    await expect(rows).to_have_count(3)

    activity = page.get_by_test_id("agent-activity")
    await expect(activity).to_contain_text("Done 22")
    await page.get_by_role("button", name="Decisions").click()
    await expect(activity).to_contain_text(f"Decided: yes (by {desk.name})")
    await page.get_by_role("button", name="Failures").click()
    await expect(activity).to_contain_text("Turn failed")
    await desk.screenshot(page, "agent-page", "desktop", "light")
    await activity.get_by_role("button").first.click()
    await expect(page).to_have_url(re.compile(rf"/conversations/{sessions[0]}$"))


async def test_the_agent_page_and_an_outside_mail_pass_axe_on_a_phone(
    desk: Desk, tmp_path: Path
) -> None:
    """At 390x844 in the dark theme: axe (contrast included) finds nothing serious, and
    neither page is wider than the screen."""
    await desk.human()
    builder = await desk.agent("builder", ("ws", "/srv/ws"))
    agent = desk.agent_name("builder")
    await _import(desk, tmp_path, f"{agent}+ws@{DOMAIN}")
    [session] = await _conversations(desk, agent, 1)
    failed = {"to": f"{desk.name}@", "subject": "Turn failed " + "x" * 80, "body": "timed out",
              "mail_type": "turn_failed", "session_id": session}  # fmt: skip
    ok(await builder.post(AGENT_SEND, json=failed))
    wide = "() => document.documentElement.scrollWidth <= window.innerWidth"

    page = await desk.open("phone", "dark", bypass_csp=True, path=f"/agents/{agent}")
    await page.get_by_role("button", name="Failures").click()
    await expect(page.get_by_test_id("agent-activity")).to_contain_text("Turn failed")
    failing = await serious_violations(page, "agent page (phone, dark)")
    assert await page.evaluate(wide)
    await desk.screenshot(page, "agent-page", "phone", "dark")

    await page.goto("/inbox")
    await page.get_by_role("region", name="Mail").get_by_text(f"Invoice {desk.unique}").click()
    await expect(page.locator("#mail-subject")).to_have_text(f"Invoice {desk.unique}")
    await expect(page.get_by_test_id("outside-reply-note")).to_be_visible()
    failing += await serious_violations(page, "an outside sender's mail (phone, dark)")
    assert await page.evaluate(wide)
    assert not failing, "\n".join(failing)

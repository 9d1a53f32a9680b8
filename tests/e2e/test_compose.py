"""Compose says where a mail goes, and never sends without a file it was given.

Picking a workspace's `….new` suggestion (offered first) opens a new conversation
with the alias typed in its alias field; a typed `name@path` is kept as typed, the
line under it names the default conversation it continues with its rounds left,
and the mail lands there. A file over the gateway's limit (25 MiB by default) is
refused before any of it is uploaded, with the limit named, and Send stays off
until the file is removed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Locator, Page, expect

from tests.e2e.desk import Desk
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

MiB = 1024 * 1024


async def open_compose(page: Page) -> tuple[Locator, Locator]:
    await page.get_by_role("button", name="Compose").click()
    dialog = page.get_by_role("dialog", name="New mail")
    return dialog, dialog.get_by_role("combobox", name="To")


async def reach_line(to: Locator) -> Locator:
    """The line that describes the To field (what the address reaches)."""
    await expect(to).to_have_attribute("aria-describedby", re.compile(r"description$"))
    described = await to.get_attribute("aria-describedby")
    return to.page.locator(f"[id='{described}']")


async def conversation_of(human: httpx.AsyncClient, subject: str) -> dict[str, Any]:
    sessions = ok(await human.get("/api/v1/me/sessions", params={"limit": 100}))["sessions"]
    found = [s for s in sessions if s["subject"] == subject]
    assert len(found) == 1, [s["subject"] for s in sessions]
    return found[0]


async def test_the_new_suggestion_with_an_alias_opens_a_new_conversation(desk: Desk) -> None:
    human = await desk.human()
    await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    address = f"{desk.agent_name('builder')}@ModelRouter"
    ok(await human.post(HUMAN_SEND, json={"to": address, "subject": "Old task", "body": "b"}))
    page = await desk.open()

    dialog, to = await open_compose(page)
    await to.press_sequentially(desk.agent_name("builder"), delay=20)
    options = dialog.get_by_role("option")
    await expect(options.first).to_contain_text(f"{address}.new")
    await expect(options.nth(1)).to_contain_text(re.compile(re.escape(address) + r"(?!\.)"))
    await options.first.click()
    await expect(to).to_have_value(f"{address}.new")
    await expect(await reach_line(to)).to_have_text("New conversation")

    await dialog.get_by_label("Subject").fill("Add a health check")
    alias = dialog.get_by_label("Alias of the new conversation")
    await expect(alias).to_have_value("add-a-health-check")
    mine = f"health-{desk.unique}"
    await alias.fill(mine)
    await expect(dialog.get_by_text(f"Later mail to {address}.{mine} continues")).to_be_visible()
    await dialog.get_by_label("Message (Markdown)").fill("Please add **/health**.")
    await desk.screenshot(page, "compose-new", "desktop", "light")
    await dialog.get_by_role("button", name="Send").click()
    await expect(dialog).to_be_hidden()

    made = await conversation_of(human, "Add a health check")
    assert made["session_alias"] == mine
    assert made["session_id"] != (await conversation_of(human, "Old task"))["session_id"]


async def test_a_typed_address_says_which_conversation_it_continues(desk: Desk) -> None:
    human = await desk.human()
    builder = await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    address = f"{desk.agent_name('builder')}@ModelRouter"
    subject = f"Weekly report {desk.unique}"
    first = ok(await human.post(HUMAN_SEND, json={"to": address, "subject": subject, "body": "b"}))
    ok(
        await builder.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": f"Re: {subject}",
                "body": "Done.",
                "reply_to": first["mail_id"],
            },
        )
    )
    page = await desk.open()

    dialog, to = await open_compose(page)
    await to.press_sequentially(address, delay=10)
    await dialog.get_by_label("Subject").focus()  # leave the field; no suggestion is picked
    await expect(to).to_have_value(address)
    line = await reach_line(to)
    await expect(line).to_have_text(
        f"Continues the default conversation #{first['session_alias']} · 19/20 rounds left"
    )
    await expect(dialog.get_by_label("Round-trip budget")).to_have_count(0)
    await dialog.get_by_label("Subject").fill("Another task")
    await desk.screenshot(page, "compose-default", "desktop", "light")
    async with page.expect_request(lambda r: r.url.endswith("/me/mail/send")) as request:
        await dialog.get_by_role("button", name="Send").click()
    assert (await request.value).post_data_json["to"] == address  # as typed
    await expect(dialog).to_be_hidden()

    sent = ok(await human.get("/api/v1/me/mail/sent", params={"limit": 1}))["mails"][0]
    assert sent["subject"] == "Another task"
    assert sent["session_id"] == first["session_id"]


async def test_an_oversized_attachment_blocks_send_and_names_the_limit(
    desk: Desk, tmp_path: Path
) -> None:
    await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    page = await desk.open()
    uploads: list[str] = []
    page.on("request", lambda r: uploads.append(r.url) if "/attachments" in r.url else None)

    dialog, to = await open_compose(page)
    await to.fill(f"{desk.agent_name('builder')}@ModelRouter")
    await dialog.get_by_label("Subject").fill("The recording")
    await expect(dialog.get_by_text("(up to 25 MiB each)")).to_be_visible()
    big = tmp_path / "recording.webm"
    with big.open("wb") as file:
        file.truncate(26 * MiB)  # sparse: the browser reads it from disk
    await dialog.locator("input[type=file]").set_input_files(big)

    await expect(dialog.get_by_role("alert")).to_have_text(
        "Over the 25 MiB limit for an attachment"
    )
    send = dialog.get_by_role("button", name="Send")
    await expect(send).to_be_disabled()
    await expect(
        dialog.get_by_text("Remove the files that could not be attached before sending.")
    ).to_be_visible()
    await desk.screenshot(page, "compose-too-large", "desktop", "light")
    await page.keyboard.press("Control+Enter")
    await expect(dialog).to_be_visible()
    assert uploads == []

    await dialog.get_by_role("button", name="Remove recording.webm").click()
    await expect(send).to_be_enabled()

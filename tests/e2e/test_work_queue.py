""" "Needs you", the home: what waits for the human appears live and is handled in place.

The page is open before the agent asks: its permission requests and its question
appear without a reload. One request is decided from the keyboard (`1`, a note,
Enter) and reaches the agent once the undo window ends; another is decided and
undone within the window, so the agent sees nothing and the request stays open. A
conversation out of rounds is raised in place with a reason, and the agent's next
send, refused before, goes through. The window is shortened for the test through
the page's storage (the product's is 5 s).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Dialog, Page, expect

from tests.e2e.desk import Desk
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok
from tests.support.sse import open_stream

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

REQUEST = "/api/v1/permission/request"
WINDOW_MS = 1500


async def open_queue(desk: Desk, window_ms: int = WINDOW_MS) -> Page:
    page = await desk.open(path="/")
    await page.evaluate(f"localStorage.setItem('agentmail.undoWindowMs', '{window_ms}')")
    await page.reload()
    await expect(page.get_by_role("heading", name="Needs you", level=1)).to_be_visible()
    return page


async def agent_with_a_task(
    desk: Desk, name: str, **extra: Any
) -> tuple[httpx.AsyncClient, dict[str, Any]]:
    """An agent, and the task the human sent it (its conversation)."""
    human = await desk.human()
    agent = await desk.agent(name, ("app", "/srv/app"))
    body = {"to": f"{desk.agent_name(name)}@app", "subject": "Ship it", "body": "go", **extra}
    return agent, ok(await human.post(HUMAN_SEND, json=body))


async def ask(agent: httpx.AsyncClient, desk: Desk, question: str, session_id: str) -> str:
    body = {"to": f"{desk.name}@", "question": question, "options": ["approve", "reject"]}
    made: dict[str, Any] = ok(await agent.post(REQUEST, json={**body, "session_id": session_id}))
    return str(made["mail_id"])


async def state_of(agent: httpx.AsyncClient, mail_id: str) -> str:
    return str(ok(await agent.get(f"/api/v1/mail/{mail_id}"))["permission_state"])


async def test_requests_and_a_question_arrive_live_and_are_decided_from_the_keyboard(
    desk: Desk,
) -> None:
    agent, task = await agent_with_a_task(desk, "builder")
    page = await open_queue(desk)
    await expect(page.get_by_text("Nothing needs you now")).to_be_visible()

    deploy = await ask(agent, desk, "May I deploy?", task["session_id"])
    restart = await ask(agent, desk, "May I restart?", task["session_id"])
    ok(
        await agent.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": "Which region?",
                "body": "eu or us?",
                "mail_type": "question",
                "reply_to": task["mail_id"],
            },
        )
    )
    requests = page.get_by_test_id("queue-request")
    await expect(requests).to_have_count(2)
    await expect(page.get_by_test_id("queue-question")).to_contain_text("Which region?")
    await expect(page.get_by_label("Answer", exact=False)).to_be_visible()

    async with open_stream(agent) as stream:
        first = requests.filter(has_text="May I deploy?")
        await first.focus()
        await page.keyboard.press("1")
        await page.keyboard.type("go ahead")
        await page.keyboard.press("Enter")
        await expect(
            page.get_by_role("status").filter(has_text="Decided “approve”")
        ).to_be_visible()
        decided = (await stream.next_of("permission_decision")).json
        assert (decided["mail_id"], decided["decision"], decided["note"]) == (
            deploy,
            "approve",
            "go ahead",
        )

        second = requests.filter(has_text="May I restart?")
        await second.focus()
        await page.keyboard.press("2")
        await page.keyboard.press("Enter")
        await expect(second).to_be_hidden()
        await page.get_by_role("button", name="Undo").click()
        await expect(requests.filter(has_text="May I restart?")).to_be_visible()
        assert await stream.nothing_within(WINDOW_MS / 1000 + 1)
    assert await state_of(agent, restart) == "open"
    assert await state_of(agent, deploy) == "decided"


async def test_a_conversation_out_of_rounds_is_raised_in_place(desk: Desk) -> None:
    agent, task = await agent_with_a_task(desk, "worker", subject="One round only", budget=1)
    reply = {"to": f"{desk.name}@", "subject": "Re", "body": "done", "reply_to": task["mail_id"]}
    ok(await agent.post(AGENT_SEND, json=reply))
    refused = await agent.post(AGENT_SEND, json=reply)
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "budget_exhausted"

    page = await open_queue(desk)
    budget = page.get_by_test_id("queue-budget")
    await expect(budget).to_contain_text("0 rounds left of 1")
    await budget.get_by_label("New budget (rounds)").fill("5")
    await budget.get_by_label("Why (optional, the agent sees it)").fill("one more pass")
    async with open_stream(agent) as stream:
        await budget.get_by_role("button", name="Raise the budget").click()
        update = (await stream.next_of("session_update")).json
    assert (update["budget_limit"], update["reason"], update["changed_by"]) == (
        5,
        "one more pass",
        desk.name,
    )
    await expect(budget).to_have_count(0)
    ok(await agent.post(AGENT_SEND, json=reply))


async def test_a_decision_held_as_the_tab_closes_is_asked_about_then_sent(desk: Desk) -> None:
    """Closing the tab while a decision is held: the browser asks first (beforeunload),
    and once the person leaves anyway the decision goes out with the page (a `keepalive`
    request on pagehide), long before its undo window would have ended."""
    agent, task = await agent_with_a_task(desk, "closer")
    page = await open_queue(desk, window_ms=600_000)
    tidy = await ask(agent, desk, "May I tidy up?", task["session_id"])
    card = page.get_by_test_id("queue-request").filter(has_text="May I tidy up?")
    await expect(card).to_be_visible()

    asked: list[str] = []

    async def leave_anyway(dialog: Dialog) -> None:
        asked.append(dialog.type)
        await dialog.accept()

    page.on("dialog", leave_anyway)
    async with open_stream(agent) as stream:
        await card.focus()
        await page.keyboard.press("1")
        await page.keyboard.press("Enter")
        await expect(card).to_be_hidden()  # held: ten minutes of undo ahead
        await page.close(run_before_unload=True)
        decided = (await stream.next_of("permission_decision")).json
    assert asked == ["beforeunload"]
    assert (decided["mail_id"], decided["decision"]) == (tidy, "approve")
    assert await state_of(agent, tidy) == "decided"

"""Web Push, the browser's half: the Account page registers the service worker; a push
delivered to it through the DevTools protocol (`ServiceWorker.deliverPushMessage`, as
a push service would) shows a notification naming the request, and the URL its click
opens is the request, which opens in the desk.

Debian's Chromium has no push service here: the page's subscription fails (and says
so), while the worker is registered, which is what this half needs. The gateway's
half (encryption, VAPID, the push service's answers) is
tests/integration/test_web_push.py; here the payload is the one the gateway sends.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from playwright.async_api import CDPSession, expect

from tests.e2e.desk import Desk
from tests.support.http import ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map(
    (n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""


async def _registration_id(cdp: CDPSession) -> str:
    """The service worker's registration id, as the DevTools protocol names it (the
    domain stays enabled on `cdp`: delivering a push needs it)."""
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def updated(event: dict[str, Any]) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"].endswith("/") and not found.done():
                found.set_result(registration["registrationId"])

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    await cdp.send("ServiceWorker.enable")
    return await asyncio.wait_for(found, 15)


async def test_a_push_shows_a_notification_that_opens_the_request(desk: Desk) -> None:
    await desk.human()
    builder = await desk.agent("builder", ("ModelRouter", "/srv/model-router"))
    question = "May I restart the staging database?"
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": f"{desk.name}@", "question": question, "options": ["yes", "no"]},
        )
    )
    page = await desk.open(path="/account")
    await page.context.grant_permissions(["notifications"], origin=desk.base_url)
    section = page.get_by_role("region", name="Push notifications")
    await section.get_by_role("button", name="Enable on this device").click()
    script = await page.evaluate("navigator.serviceWorker.ready.then(r => r.active.scriptURL)")
    assert script == f"{desk.base_url}/sw.js"

    payload = {
        "kind": "permission_request",
        "agent": desk.agent_name("builder"),
        "session_id": asked["session_id"],
        "mail_id": asked["mail_id"],
        "url": f"/decisions/{asked['mail_id']}",
    }
    cdp = await page.context.new_cdp_session(page)
    await cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": desk.base_url,
            "registrationId": await _registration_id(cdp),
            "data": json.dumps(payload),
        },
    )
    shown: list[dict[str, Any]] = []
    for _ in range(100):
        shown = await page.evaluate(NOTIFICATIONS)
        if shown:
            break
        await asyncio.sleep(0.1)
    (notification,) = shown
    assert notification["title"] == f"{desk.agent_name('builder')} asks for your permission"
    assert notification["body"].startswith(f"Conversation {asked['session_id'][:8]}")
    assert question not in json.dumps(notification)
    url = notification["data"]["url"]
    assert url == f"{desk.base_url}/decisions/{asked['mail_id']}"

    await page.goto(url)  # where the notification's click takes the person
    await expect(page.get_by_text(question).first).to_be_visible()

"""Every main view at both sizes and in both themes: axe finds no serious or
critical violation, and a screenshot of each goes to web/screenshots/.

One walk per size and theme over a small, realistic desk (an agent's reply, an
open permission request, a report with a table): the login page, inbox, a mail,
the permission card, Needs you, Needs decision, a conversation, compose with the address
suggestions open, search results, agents, admin and account. The theme comes
from the system (`color_scheme` of the context, which the UI follows); the
account page's switch is also tried. These contexts bypass the CSP to inject
axe (tests/e2e/axe.py); every other test runs under the real policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.desk import Desk, Size, Theme
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

REPLY = """Found it: `logout()` keeps the session cookie when the tab is closed.

1. Clear the cookie in `auth/session.py`.
2. Add a regression test.

```python
def logout(response):
    response.delete_cookie("session", samesite="strict")
```
"""
REPORT = """| suite | passed | failed |
|---|---:|---:|
| unit | 1,204 | 0 |
| integration | 388 | 1 |

- [x] build
- [ ] flaky `test_sse_resume` to look at
"""


# The walks whose pictures README shows get plain names (docs/img/).
PERSONAS = {
    ("desktop", "light"): ("jianf", "builder", "pi"),
    ("phone", "light"): ("mia", "opencode", "claude"),
}


async def showcase(desk: Desk, coder: str, reporter: str) -> dict[str, str]:
    """A desk with something in every view; the ids the walk opens."""
    human = await desk.human(is_admin=True)
    builder = await desk.agent(coder, ("ModelRouter", "/home/u/ModelRouter"))
    pi = await desk.agent(reporter, ("root", "/srv/app"))
    builder_address = f"{desk.agent_name(coder)}@ModelRouter"
    task = ok(
        await human.post(
            HUMAN_SEND,
            json={
                "to": builder_address,
                "subject": "Fix the login leak",
                "body": "Users stay signed in after **logout**. Please find out why.",
                "budget": 5,
            },
        )
    )
    reply = ok(
        await builder.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": "Re: Fix the login leak",
                "body": REPLY,
                "reply_to": task["mail_id"],
            },
        )
    )
    request = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={
                "to": f"{desk.name}@",
                "question": "May I deploy the fix to production?",
                "context": "The patch touches `auth/session.py` only; all tests pass.",
                "action": "kubectl rollout restart deploy/auth --context prod",
                "options": ["approve", "reject"],
                "expires_in": "2h",
                "session_id": task["session_id"],
            },
        )
    )
    ok(
        await pi.post(
            AGENT_SEND,
            json={"to": f"{desk.name}@", "subject": "Nightly test report", "body": REPORT},
        )
    )
    return {"reply": reply["mail_id"], "request": request["mail_id"], "session": task["session_id"]}


async def go(page: Page, path: str) -> None:
    """Navigate inside the app, as its links do (history + popstate): no reload, so the
    walk does not pay for a page load per view, and axe stays injected."""
    await page.evaluate(
        "(path) => { history.pushState(null, '', path);"
        " dispatchEvent(new PopStateEvent('popstate')); }",
        path,
    )


async def theme_switch(page: Page, theme: Theme) -> None:
    """The account page's switch overrides the system's theme, and gives it back."""
    other = "Dark" if theme == "light" else "Light"
    switch = page.get_by_label("Theme")
    await switch.select_option(label=other)
    await expect(page.locator("html")).to_have_attribute("data-theme", other.lower())
    await switch.select_option(label="Follow the system")
    await expect(page.locator("html")).to_have_attribute("data-theme", theme)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_every_main_view_passes_axe(desk: Desk, size: Size, theme: Theme) -> None:
    coder, reporter = "builder", "pi"
    if (size, theme) in PERSONAS:
        human, coder, reporter = PERSONAS[(size, theme)]
        desk.persona(human)
    ids = await showcase(desk, coder, reporter)
    page = await desk.open(size, theme, bypass_csp=True, sign_in=False)
    failing: list[str] = []

    async def check(view: str) -> None:
        await expect(page.locator("html")).to_have_attribute("data-theme", theme)
        failing.extend(await serious_violations(page, f"{view} ({size}, {theme})"))
        await desk.screenshot(page, view, size, theme)

    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    await check("login")
    await desk.sign_in(page)

    async def inbox() -> None:
        await expect(page.locator(f"[data-mail-id='{ids['request']}']")).to_be_visible()

    async def mail() -> None:
        await go(page, f"/inbox/{ids['reply']}")
        await expect(page.get_by_role("article")).to_contain_text("keeps the session cookie")
        await expect(page.get_by_role("region", name="Conversation tree")).to_be_visible()

    async def permission() -> None:
        await go(page, f"/inbox/{ids['request']}")
        card = page.get_by_role("region", name="Permission request")
        await expect(card).to_have_attribute("data-state", "open")

    async def queue() -> None:
        await go(page, "/")
        await expect(page.get_by_role("heading", name="Needs you", level=1)).to_be_visible()
        await expect(page.get_by_test_id("queue-request").first).to_be_visible()

    async def decisions() -> None:
        await go(page, "/decisions")
        await expect(page.get_by_text("May I deploy the fix to production?").first).to_be_visible()

    async def conversation() -> None:
        await go(page, f"/conversations/{ids['session']}")
        await expect(page.get_by_text("Fix the login leak").first).to_be_visible()

    async def compose() -> None:
        await go(page, "/inbox")
        await page.get_by_role("button", name="Compose").click()
        to = page.get_by_role("dialog", name="New mail").get_by_role("combobox", name="To")
        await to.press_sequentially(desk.agent_name(coder)[:4], delay=20)
        await expect(page.get_by_role("option").first).to_be_visible()

    async def search() -> None:
        await page.keyboard.press("Escape")
        await expect(page.get_by_role("dialog", name="New mail")).to_be_hidden()
        await page.get_by_role("searchbox", name="Search").fill("cookie")
        results = page.get_by_role("region", name="Found mail")
        await expect(results.locator("[data-mail-id]").first).to_be_visible()

    async def agents() -> None:
        await go(page, "/agents")
        await expect(page.get_by_text(desk.agent_name(coder)).first).to_be_visible()

    async def admin() -> None:
        await go(page, "/admin")
        await expect(page.get_by_role("heading", name="Users")).to_be_visible()

    async def account() -> None:
        await go(page, "/account")
        await expect(page.get_by_label("Theme")).to_be_visible()
        await theme_switch(page, theme)

    views: dict[str, Callable[[], Awaitable[None]]] = {
        "inbox": inbox,
        "mail": mail,
        "permission": permission,
        "queue": queue,
        "decisions": decisions,
        "conversation": conversation,
        "compose": compose,
        "search": search,
        "agents": agents,
        "admin": admin,
        "account": account,
    }
    for view, reach in views.items():
        await reach()
        await check(view)
    assert not failing, "\n".join(failing)

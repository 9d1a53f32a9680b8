"""An XSS corpus sent by an agent renders in the browser without executing anything.

Every payload would set `window.__xss` (or open a dialog) if it ran. The mail
is opened in the list, the reading pane and the conversation view, the
clickable payloads are clicked and the hoverable ones hovered; `__xss` must
stay undefined and no dialog may open. The page runs under the gateway's real
CSP, and the desk fails the test on any CSP violation: a payload that survived
the sanitiser would be blocked by the CSP *and reported*, so this checks the
sanitiser itself, not only the policy behind it.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Dialog, expect

from tests.e2e.desk import Desk
from tests.support.http import AGENT_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

SET = "window.__xss="
PAYLOADS = [
    f"<script>{SET}'script'</script>",
    f"<img src=x onerror=\"{SET}'img'\">",
    f"<img src=x onerror={SET}'bare'>",
    f"<a href=\"javascript:{SET}'link'\">html link</a>",
    f"[markdown link](javascript:{SET}'md-link')",
    f"[spaced link]( javascript:{SET}'spaced' )",
    "<a href=\"JaVaScRiPt:alert('upper')\">upper link</a>",
    f"<svg><script>{SET}'svg-script'</script></svg>",
    f"<svg onload=\"{SET}'svg-onload'\"><circle r=5 /></svg>",
    f"<div onmouseover=\"{SET}'hover'\">hover me</div>",
    f"<details open ontoggle=\"{SET}'toggle'\"><summary>details</summary></details>",
    "<iframe srcdoc=\"<script>parent.__xss='iframe'</script>\"></iframe>",
    f"<object data=\"javascript:{SET}'object'\"></object>",
    f"<form action=\"javascript:{SET}'form'\"><button>submit me</button></form>",
    # Malformed HTML the Markdown parser and the sanitiser must agree on.
    f"<img src=x onerror={SET}'unclosed' <b>bold",
    f"<<script>script>{SET}'nested'<</script>/script>",
    f"<math><mtext><table><mglyph><style><img src=x onerror={SET}'mxss'>",
    f"<noscript><p title=\"</noscript><img src=x onerror={SET}'noscript'>\">",
    f"```\n</code><img src=x onerror={SET}'fence'>\n```",
    f"| a | b |\n|---|---|\n| <img src=x onerror={SET}'table'> | `x` |",
    "<style>body{background:url(javascript:alert('style'))}</style>",
    "<a href=\"data:text/html,<script>alert('data')</script>\">data link</a>",
]
CLICKABLE = ("html link", "markdown link", "spaced link", "upper link", "data link", "details")
CLICKABLE += ("submit me",)
BODY = "Here is what I found:\n\n" + "\n\n".join(PAYLOADS) + "\n\nThe end of the corpus."
ATTACHMENT = f"<img src=x onerror={SET}'attachment'>.html"
SUBJECT = f"Report <img src=x onerror={SET}'subject'> done"


async def test_the_xss_corpus_renders_without_executing(desk: Desk) -> None:
    human = await desk.human()
    agent = await desk.agent("mallory", ("lab", "/srv/lab"))
    uploaded = ok(
        await agent.post(
            "/api/v1/attachments",
            files={"file": (ATTACHMENT, f"<script>{SET}'file'</script>".encode(), "text/html")},
        )
    )
    sent = ok(
        await agent.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": SUBJECT,
                "body": BODY,
                "attachment_ids": [uploaded["attachment_id"]],
            },
        )
    )
    page = await desk.open("desktop")
    dialogs: list[str] = []

    async def dismiss(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", dismiss)
    row = page.locator(f"[data-mail-id='{sent['mail_id']}']")
    await expect(row).to_contain_text("Report <img")
    await row.click()
    article = page.get_by_role("article")
    await expect(article).to_contain_text("The end of the corpus.")
    await expect(article.get_by_role("link", name=ATTACHMENT)).to_be_visible()

    # What survives sanitising as text or an inert element is clicked, hovered, toggled.
    for name in CLICKABLE:
        target = article.get_by_text(name, exact=True)
        if await target.count():
            await target.first.click()
    await article.get_by_text("hover me").hover()
    # Still the same document, still the mail: no link navigated away.
    await expect(article).to_contain_text("The end of the corpus.")
    assert await page.evaluate("() => typeof window.__xss") == "undefined"

    await page.goto(f"/conversations/{sent['session_id']}")
    await expect(page.get_by_text("The end of the corpus.").first).to_be_visible()
    assert await page.evaluate("() => typeof window.__xss") == "undefined"
    assert dialogs == []
    shown = ok(await human.get(f"/api/v1/me/mail/{sent['mail_id']}"))
    assert shown["body"] == BODY  # stored as sent: the escaping is the renderer's

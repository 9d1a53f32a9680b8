"""Every message a person reads is theirs (docs/web.md): the gateway's refusals are
said in the user's language from their code and the inputs they name, never in
the API's English or in pydantic's.

The table: real refusals of the real gateway (422 naming fields, 401, 403, 409,
413, 429 twice), each taken from it over HTTP and then given to the browser as the
answer to "Create user" on the Admin page, read in English and in Chinese. Then
the refusals a person meets on their own: a wrong password at the login (whose
page asks who is signed in without a 401 in the console), a wrong current
password, a subject that stops at 998 characters, a subject of one long word
that wraps in the reading pane of a phone, and a phone's search box that does
not ask to press a key it has not got.
"""

# ruff: noqa: RUF001  (the Chinese sentences take full-width punctuation, as Chinese does)

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import ConsoleMessage, Page, Response, Route, expect

from tests.e2e.desk import Desk
from tests.e2e.probes import settled
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

LOCALES = Path(__file__).parents[2] / "web" / "src" / "locales"
MiB = 1024 * 1024

# Pydantic's words and the API's English, which must never reach a person as they are.
LIBRARY_PHRASES = (
    "String should have",
    "should have at least",
    "should have at most",
    "Field required",
    "Input should be",
    "List should have",
    "Value error",
    "valid integer",
    "unable to parse",
    "authentication required",
    "admins only",
    "already taken",
    "request body over",
    "an attachment is at most",
    "wrong user name or password",
    "budget of this conversation",
    "too many failed logins",
)


@dataclass
class Refusal:
    """One answer of the gateway, as it came, and what a person must read for it."""

    name: str
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    en: str
    zh: str


def taken(name: str, response: httpx.Response, en: str, zh: str) -> Refusal:
    assert response.status_code >= 400, response.text
    kept = {k: v for k, v in response.headers.items() if k.lower() in ("retry-after",)}
    return Refusal(name, response.status_code, kept, response.json(), en, zh)


async def throttled_login(tmp_path: Path) -> httpx.Response:
    """A login refused by the throttle, from a gateway of its own (one that allows one
    failure a minute): the suite's gateway serves every test from this address."""
    root = tmp_path / "throttled"
    url = f"sqlite:///{root / 'agentmail.db'}"
    root.mkdir()
    wrong = {"username": "admin", "password": "not-it"}
    async with running_gateway(url, root / "data", login_failures_per_address=1) as gateway:
        api = Api(gateway)
        try:
            client = api.client()
            assert (await client.post("/api/v1/auth/login", json=wrong)).status_code == 401
            return await client.post("/api/v1/auth/login", json=wrong)
        finally:
            await api.close()


async def refusals(desk: Desk, tmp_path: Path) -> list[Refusal]:
    """The gateway's own answers to requests a person's page could make."""
    api: Api = desk.api
    human = await desk.human(is_admin=True)
    plain = await api.human(f"pl{desk.unique}")
    builder = await desk.agent("builder", ("ModelRouter", "/home/u/ModelRouter"))
    users = "/api/v1/admin/users"
    task = ok(
        await human.post(
            HUMAN_SEND,
            json={"to": f"{desk.agent_name('builder')}@ModelRouter", "subject": "t", "budget": 1},
        )
    )
    reply = {"to": f"{desk.name}@", "subject": "re", "reply_to": task["mail_id"]}
    ok(await builder.post(AGENT_SEND, json=reply))
    upload = {"file": ("big.bin", b"x" * (25 * MiB + 1))}
    throttled = await throttled_login(tmp_path)
    wait = throttled.headers["retry-after"]
    return [
        taken(
            "422 too long",
            await human.post(HUMAN_SEND, json={"to": f"{desk.name}@", "subject": "s" * 5000}),
            "Subject: at most 998 characters.",
            "主题：最多 998 个字符。",
        ),
        taken(
            "422 two fields",
            await human.post(users, json={"name": "n" * 65, "password": "pw"}),
            "Name: at most 64 characters. Password: at least 8 characters.",
            "名称：最多 64 个字符。 密码：至少 8 个字符。",
        ),
        taken(
            "422 missing",
            await human.post(HUMAN_SEND, json={"subject": "no one"}),
            "To: required.",
            "收件人：必填。",
        ),
        taken(
            "401",
            await api.client().post(users, json={"name": "x", "password": PASSWORD}),
            "Your sign-in has ended. Sign in again.",
            "登录已失效，请重新登录。",
        ),
        taken(
            "403",
            await plain.post(users, json={"name": "x", "password": PASSWORD}),
            "You are not allowed to do this.",
            "你无权执行此操作。",
        ),
        taken(
            "409",
            await human.post(users, json={"name": desk.name, "password": PASSWORD}),
            "A person or an agent has this name already.",
            "已有人或智能体使用这个名字。",
        ),
        taken(
            "413",
            await human.post("/api/v1/me/attachments", files=upload),
            "File: at most 25 MiB.",
            "文件：最大 25 MiB。",
        ),
        taken(
            "429 budget",
            await builder.post(AGENT_SEND, json=reply),
            "The conversation's budget is used up. Raise it to go on.",
            "对话的轮次预算已用完。提高预算后才能继续。",
        ),
        taken(
            "429 throttle",
            throttled,
            f"Too many attempts. Try again in {wait} seconds.",
            f"尝试次数过多，请 {wait} 秒后再试。",
        ),
    ]


def words(language: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((LOCALES / f"{language}.json").read_text("utf-8"))
    return found


async def said(page: Page, language: str, refusal: Refusal) -> str:
    """What the Admin page says when "Create user" is answered with `refusal`."""
    text = words(language)

    async def answer(route: Route) -> None:
        if route.request.method != "POST":
            await route.continue_()
            return
        await route.fulfill(
            status=refusal.status,
            headers={**refusal.headers, "content-type": "application/json"},
            body=json.dumps(refusal.body),
        )

    await page.route("**/api/v1/admin/users", answer)
    form = page.locator("form").filter(
        has=page.get_by_role("button", name=text["admin"]["createUser"])
    )
    await form.get_by_label(text["admin"]["userName"]).fill("newcomer")
    await form.get_by_label(text["login"]["password"], exact=True).fill(PASSWORD)
    await form.get_by_role("button", name=text["admin"]["createUser"]).click()
    alert = form.get_by_role("alert")
    await expect(alert).to_be_visible()
    shown = (await alert.inner_text()).strip()
    await page.unroute("**/api/v1/admin/users", answer)
    await form.get_by_label(text["admin"]["userName"]).fill("")  # the next answer's own
    return shown


def assert_theirs(shown: str, refusal: Refusal) -> None:
    for phrase in LIBRARY_PHRASES:
        assert phrase.lower() not in shown.lower(), (refusal.name, shown)
    assert refusal.body["error"]["message"] not in shown, (refusal.name, shown)


async def test_the_gateways_refusals_in_english_and_chinese(desk: Desk, tmp_path: Path) -> None:
    table = await refusals(desk, tmp_path)
    # What the table is made of: the gateway's own bodies, fields and all.
    assert table[0].body["error"]["fields"] == [
        {"field": "subject", "code": "too_long", "limit": 998}
    ]
    assert table[0].body["error"]["message"].startswith("subject: String should have")
    assert {r.status for r in table} == {401, 403, 409, 413, 422, 429}

    page = await desk.open(path="/admin")
    await expect(page.get_by_role("heading", name="Users")).to_be_visible()
    for refusal in table:
        shown = await said(page, "en", refusal)
        assert shown == refusal.en, (refusal.name, shown)
        assert_theirs(shown, refusal)

    await page.goto("/account")
    await page.get_by_label("Language").select_option("zh")
    await expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    await page.goto("/admin")
    for refusal in table:
        shown = await said(page, "zh", refusal)
        assert shown == refusal.zh, (refusal.name, shown)
        assert_theirs(shown, refusal)


async def test_the_refusals_a_person_meets_on_their_own(desk: Desk) -> None:
    page = await desk.open(sign_in=False, path="/")
    refused: list[str] = []
    console: list[str] = []

    def on_response(response: Response) -> None:
        if response.status >= 400:
            refused.append(f"{response.status} {response.url}")

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            console.append(message.text)

    page.on("response", on_response)
    page.on("console", on_console)
    await page.reload()
    await expect(page.get_by_label("User name")).to_be_visible()
    await page.wait_for_load_state("networkidle")
    assert refused == [] and console == [], (refused, console)  # who is signed in: nobody, quietly

    await page.get_by_label("User name").fill(desk.name)
    await page.get_by_label("Password").fill("not-my-password")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("Wrong user name or password.")
    await desk.sign_in(page)

    # A wrong current password, said under that field.
    await page.goto("/account")
    await page.get_by_label("Current password").fill("not-my-password")
    await page.get_by_label("New password", exact=True).fill("a-new-password-42")
    await page.get_by_label("New password again").fill("a-new-password-42")
    await page.get_by_role("button", name="Change password").click()
    current = page.get_by_label("Current password")
    await expect(current).to_have_accessible_description("The current password is wrong.")
    await expect(current).to_have_attribute("aria-invalid", "true")

    # The subject stops at the API's 998 characters, and says so.
    await page.goto("/inbox")
    await page.get_by_role("button", name="Compose").click()
    dialog = page.get_by_role("dialog", name="New mail")
    subject = dialog.get_by_label("Subject")
    await subject.fill("s" * 5000)
    assert len(await subject.input_value()) == 998
    await expect(dialog.get_by_text("At the limit: 998 characters.")).to_be_visible()


async def test_a_long_subject_wraps_and_the_phone_has_no_slash_key(desk: Desk) -> None:
    await desk.human()
    scout = await desk.agent("scout", ("app", "/srv/app"))
    word = "Unbroken" * 124  # 992 characters, no space
    sent = ok(await scout.post(AGENT_SEND, json={"to": f"{desk.name}@", "subject": word}))
    page = await desk.open("phone")
    search = page.get_by_role("searchbox", name="Search")
    await expect(search).to_have_attribute("placeholder", "Search mail")
    await page.locator(f"[data-mail-id='{sent['mail_id']}']").click()
    heading = page.locator("#mail-subject")
    await expect(heading).to_have_text(word)
    await settled(page)
    right = await heading.evaluate("(el) => el.getBoundingClientRect().right")
    width = await page.evaluate("() => window.innerWidth")
    scrolled = await page.evaluate("() => document.documentElement.scrollWidth")
    assert right <= width and scrolled <= width, (right, scrolled, width)

    desktop = await desk.open("desktop")
    placeholder = desktop.get_by_role("searchbox", name="Search")
    await expect(placeholder).to_have_attribute("placeholder", "Search mail (press /)")

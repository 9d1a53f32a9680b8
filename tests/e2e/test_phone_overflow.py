"""At 320x640 and 390x844, with long data, no view is wider than the screen.

A desk seeded with everything long (tests/e2e/long_data.py), then every route
walked at both sizes in English and light, and at 320 px in Chinese and dark (longer
and shorter words, other fonts, the other palette): the document is no wider than
the window, no element pokes out of it (or of the box that scrolls it) and no text
runs out of its element (tests/e2e/probes.py `overflowing`, which names what it
finds). A view joins the walk as one entry of `STOPS`: its name and how to get there
(a path, or steps on the page, found by the UI's own words in either language:
texts.py) and what says it is there. Each stop's picture is
web/screenshots/long-VIEW-SIZE-THEME.png (long-zh-VIEW-… in Chinese).
"""

from __future__ import annotations

import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from playwright.async_api import Page, expect

from tests.e2e.desk import Desk, Size, Theme
from tests.e2e.long_data import WORD, LongDesk, seed_long_data
from tests.e2e.probes import overflowing, settled
from tests.e2e.texts import Language, text

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

Reach = Callable[[Page, LongDesk, Language], Awaitable[None]]


@dataclass(frozen=True)
class Stop:
    name: str
    reach: Reach


async def go(page: Page, path: str) -> None:
    """Navigate inside the app, as its links do (history + popstate), without a reload."""
    await page.evaluate(
        "(path) => { history.pushState(null, '', path);"
        " dispatchEvent(new PopStateEvent('popstate')); }",
        path,
    )


Ready = Callable[[Page, Language], Awaitable[None]]


def path_stop(name: str, path: Callable[[LongDesk], str], ready: Ready) -> Stop:
    async def reach(page: Page, seed: LongDesk, language: Language) -> None:
        await go(page, path(seed))
        await ready(page, language)

    return Stop(name, reach)


def subject_shown(page: Page, language: Language) -> Awaitable[None]:
    return expect(page.locator("#mail-subject")).to_be_visible()


def first_row(page: Page, language: Language) -> Awaitable[None]:
    return expect(page.locator("[data-mail-id]").first).to_be_visible()


def listed(key: str) -> Ready:
    def ready(page: Page, language: Language) -> Awaitable[None]:
        return expect(page.get_by_role("list", name=text(language, key))).to_be_visible()

    return ready


def heading(key: str) -> Ready:
    def ready(page: Page, language: Language) -> Awaitable[None]:
        shown = page.get_by_role("heading", name=text(language, key)).first
        return expect(shown).to_be_visible()

    return ready


def titled(words: str) -> Ready:
    """A heading of the seed's own words, the same in every language."""
    return lambda page, _language: expect(
        page.get_by_role("heading", name=words).first
    ).to_be_visible()


async def compose(page: Page, seed: LongDesk, language: Language) -> None:
    await go(page, "/inbox")
    await page.get_by_role("button", name=text(language, "compose.new")).click()
    dialog = page.get_by_role("dialog", name=text(language, "compose.title.new"))
    await dialog.get_by_label(text(language, "compose.subject")).fill(WORD)
    to = dialog.get_by_role("combobox", name=text(language, "compose.to"))
    await to.press_sequentially(seed.agent[:6], delay=20)
    await expect(page.get_by_role("option").first).to_be_visible()


async def search(page: Page, seed: LongDesk, language: Language) -> None:
    await page.keyboard.press("Escape")
    dialog = page.get_by_role("dialog", name=text(language, "compose.title.new"))
    await expect(dialog).to_be_hidden()
    await page.get_by_role("searchbox", name=text(language, "search.label")).fill(WORD[:30])
    results = page.get_by_role("region", name=text(language, "search.results"))
    await expect(results.locator("[data-mail-id]").first).to_be_visible()


def view_mode(key: str) -> Reach:
    """The inbox as cards or as a list (the choice is remembered: the walk sets it back)."""

    async def reach(page: Page, seed: LongDesk, language: Language) -> None:
        await go(page, "/inbox")
        await page.get_by_role("button", name=text(language, key), exact=True).click()
        await expect(page.locator("[data-mail-id]").first).to_be_visible()

    return reach


async def drawer(page: Page, seed: LongDesk, language: Language) -> None:
    await go(page, "/inbox")
    await page.get_by_role("button", name=text(language, "nav.more")).click()
    await expect(page.get_by_role("dialog", name=text(language, "nav.more"))).to_be_visible()


async def close_drawer(page: Page, seed: LongDesk, language: Language) -> None:
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("dialog", name=text(language, "nav.more"))).to_be_hidden()


STOPS: list[Stop] = [
    path_stop("needs you", lambda s: "/", heading("queue.requests")),
    path_stop("inbox", lambda s: "/inbox", first_row),
    Stop("inbox as cards", view_mode("mail.viewCards")),
    Stop("inbox as a list", view_mode("mail.viewList")),
    path_stop("mail", lambda s: f"/inbox/{s.reply}", subject_shown),
    path_stop("thread", lambda s: f"/inbox/{s.forward}", subject_shown),
    path_stop("permission", lambda s: f"/inbox/{s.request}", subject_shown),
    path_stop("sent", lambda s: "/sent", first_row),
    path_stop("drafts", lambda s: "/drafts", listed("nav.drafts")),
    path_stop("folder", lambda s: f"/folders/{s.folder}", first_row),
    path_stop("conversations", lambda s: "/conversations", heading("nav.conversations")),
    path_stop("conversation", lambda s: f"/conversations/{s.session}", titled(WORD)),
    path_stop("decisions", lambda s: "/decisions", heading("nav.decisions")),
    path_stop("decision", lambda s: f"/decisions/{s.request}", subject_shown),
    path_stop("agents", lambda s: "/agents", heading("nav.agents")),
    path_stop("agent", lambda s: f"/agents/{s.agent}", heading("agentPage.activity")),
    path_stop("admin", lambda s: "/admin", heading("admin.agentKeys")),
    path_stop("account", lambda s: "/account", heading("nav.account")),
    Stop("compose", compose),
    Stop("search", search),
    Stop("drawer", drawer),
    Stop("drawer closed", close_drawer),
]


async def walk(
    desk: Desk, seed: LongDesk, size: Size, theme: Theme = "light", language: Language = "en"
) -> list[str]:
    """Every stop at `size`, in `theme` and `language`; what overflows, by stop."""
    found: list[str] = []
    where = f"{size} {theme} {language}"
    page = await desk.open(size, theme, sign_in=False, language=language)
    await expect(page.get_by_role("button", name=text(language, "login.signIn"))).to_be_visible()
    found += [f"{where} login: {what}" for what in await overflowing(page)]
    await desk.sign_in(page, language)
    prefix = "long" if language == "en" else f"long-{language}"
    for stop in STOPS:
        await stop.reach(page, seed, language)
        await settled(page)
        found += [f"{where} {stop.name}: {what}" for what in await overflowing(page)]
        await desk.screenshot(page, f"{prefix}-{stop.name.replace(' ', '-')}", size, theme)
    return found


async def test_no_view_is_wider_than_a_phone(desk: Desk) -> None:
    seed = await seed_long_data(desk)
    found: list[str] = []
    sizes: tuple[Size, ...] = ("small", "phone")  # 320x640 and 390x844
    for size in sizes:
        found += await walk(desk, seed, size)
    assert not found, "\n".join(found)


def chinese_fonts() -> str:
    """The fonts that can draw Chinese (fontconfig's list, which Chromium uses)."""
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True)
    return listed.stdout.strip()


async def test_no_view_is_wider_than_a_small_phone_in_chinese_and_dark(desk: Desk) -> None:
    assert chinese_fonts(), "no Chinese font: `make chromium` installs fonts-wqy-microhei"
    seed = await seed_long_data(desk)
    found = await walk(desk, seed, "small", "dark", "zh")
    assert not found, "\n".join(found)

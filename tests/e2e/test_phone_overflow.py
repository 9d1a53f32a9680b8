"""At 320x640 and 390x844, with long data, no view is wider than the screen.

One desk seeded once with everything long (tests/e2e/long_data.py), then every
route walked at both sizes: the document is no wider than the window, no element
pokes out of it (or of the box that scrolls it) and no text runs out of its
element (tests/e2e/probes.py `overflowing`, which names what it finds). A view
joins the walk as one entry of `STOPS`: its name and how to get there (a path,
or steps on the page) and what says it is there. Each stop's picture is
web/screenshots/long-VIEW-SIZE-light.png.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from playwright.async_api import Page, expect

from tests.e2e.desk import Desk, Size
from tests.e2e.long_data import WORD, LongDesk, seed_long_data
from tests.e2e.probes import overflowing, settled

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

Reach = Callable[[Page, LongDesk], Awaitable[None]]


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


Ready = Callable[[Page], Awaitable[None]]


def path_stop(name: str, path: Callable[[LongDesk], str], ready: Ready) -> Stop:
    async def reach(page: Page, seed: LongDesk) -> None:
        await go(page, path(seed))
        await ready(page)

    return Stop(name, reach)


def subject_shown(page: Page) -> Awaitable[None]:
    return expect(page.locator("#mail-subject")).to_be_visible()


def first_row(page: Page) -> Awaitable[None]:
    return expect(page.locator("[data-mail-id]").first).to_be_visible()


def listed(name: str) -> Ready:
    return lambda page: expect(page.get_by_role("list", name=name)).to_be_visible()


def heading(name: str) -> Ready:
    return lambda page: expect(page.get_by_role("heading", name=name).first).to_be_visible()


async def compose(page: Page, seed: LongDesk) -> None:
    await go(page, "/inbox")
    await page.get_by_role("button", name="Compose").click()
    dialog = page.get_by_role("dialog", name="New mail")
    await dialog.get_by_label("Subject").fill(WORD)
    await dialog.get_by_role("combobox", name="To").press_sequentially(seed.agent[:6], delay=20)
    await expect(page.get_by_role("option").first).to_be_visible()


async def search(page: Page, seed: LongDesk) -> None:
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("dialog", name="New mail")).to_be_hidden()
    await page.get_by_role("searchbox", name="Search").fill(WORD[:30])
    found = page.get_by_role("region", name="Found mail").locator("[data-mail-id]")
    await expect(found.first).to_be_visible()


def view_mode(name: str) -> Reach:
    """The inbox as cards or as a list (the choice is remembered: the walk sets it back)."""

    async def reach(page: Page, seed: LongDesk) -> None:
        await go(page, "/inbox")
        await page.get_by_role("button", name=name, exact=True).click()
        await expect(page.locator("[data-mail-id]").first).to_be_visible()

    return reach


async def drawer(page: Page, seed: LongDesk) -> None:
    await go(page, "/inbox")
    await page.get_by_role("button", name="More").click()
    await expect(page.get_by_role("dialog", name="More")).to_be_visible()


async def close_drawer(page: Page, seed: LongDesk) -> None:
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("dialog", name="More")).to_be_hidden()


STOPS: list[Stop] = [
    path_stop("needs you", lambda s: "/", heading("Permission requests")),
    path_stop("inbox", lambda s: "/inbox", first_row),
    Stop("inbox as cards", view_mode("Cards")),
    Stop("inbox as a list", view_mode("List")),
    path_stop("mail", lambda s: f"/inbox/{s.reply}", subject_shown),
    path_stop("thread", lambda s: f"/inbox/{s.forward}", subject_shown),
    path_stop("permission", lambda s: f"/inbox/{s.request}", subject_shown),
    path_stop("sent", lambda s: "/sent", first_row),
    path_stop("drafts", lambda s: "/drafts", listed("Drafts")),
    path_stop("folder", lambda s: f"/folders/{s.folder}", first_row),
    path_stop("conversations", lambda s: "/conversations", heading("Conversations")),
    path_stop("conversation", lambda s: f"/conversations/{s.session}", heading(WORD)),
    path_stop("decisions", lambda s: "/decisions", heading("Needs decision")),
    path_stop("decision", lambda s: f"/decisions/{s.request}", subject_shown),
    path_stop("agents", lambda s: "/agents", heading("Agents")),
    path_stop("agent", lambda s: f"/agents/{s.agent}", heading("Recent activity")),
    path_stop("admin", lambda s: "/admin", heading("Agent keys")),
    path_stop("account", lambda s: "/account", heading("Account")),
    Stop("compose", compose),
    Stop("search", search),
    Stop("drawer", drawer),
    Stop("drawer closed", close_drawer),
]


async def walk(desk: Desk, seed: LongDesk, size: Size) -> list[str]:
    """Every stop at `size`; what overflows, by stop."""
    found: list[str] = []
    page = await desk.open(size, sign_in=False)
    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    found += [f"{size} login: {what}" for what in await overflowing(page)]
    await desk.sign_in(page)
    for stop in STOPS:
        await stop.reach(page, seed)
        await settled(page)
        found += [f"{size} {stop.name}: {what}" for what in await overflowing(page)]
        await desk.screenshot(page, f"long-{stop.name.replace(' ', '-')}", size, "light")
    return found


async def test_no_view_is_wider_than_a_phone(desk: Desk) -> None:
    seed = await seed_long_data(desk)
    found: list[str] = []
    sizes: tuple[Size, ...] = ("small", "phone")  # 320x640 and 390x844
    for size in sizes:
        found += await walk(desk, seed, size)
    assert not found, "\n".join(found)

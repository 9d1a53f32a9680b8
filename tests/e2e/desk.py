"""A human at the web UI: a browser context signed in as a fresh user, and what it watches.

Each page the desk opens records what must never happen on it: an uncaught
script error, and a violation of the gateway's content security policy (the
browser reports both on the console). `close()` fails the test on either, so
every e2e test is also a CSP test. Only the axe pages load a script of the
test's own (`bypass_csp=True`); they are left out of the CSP check.

When a test fails, each of its pages is saved as it was to
web/screenshots/failed/; with AGENTMAIL_E2E_TRACE=1 every context also records
a Playwright trace (web/screenshots/traces/, `playwright show-trace FILE`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Literal

import httpx
from playwright.async_api import Browser, BrowserContext, ConsoleMessage, Error, Page

from tests.e2e.texts import LOCALES, Language, text
from tests.support.browser import SCREENSHOTS, SIZES
from tests.support.gateway import PASSWORD, Api
from tests.support.seeding import InboxFill, fill_inbox

TRACING = os.environ.get("AGENTMAIL_E2E_TRACE") == "1"
Size = Literal["desktop", "phone", "small"]  # small: a 320 px phone
Theme = Literal["light", "dark"]


@dataclass
class Watched:
    page: Page
    checks_csp: bool
    csp_violations: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            self.csp_violations.append(message.text)

    def on_error(self, error: Error) -> None:
        self.errors.append(f"{error.name}: {error.message}")


class Desk:
    """One test's human: `name` signs in with `PASSWORD`; agents get names from `unique`."""

    def __init__(self, browser: Browser, api: Api, unique: str, *, test_name: str) -> None:
        self.browser = browser
        self.api = api
        self.unique = unique
        self.name = f"hu{unique}"
        self.test_name = test_name
        self._human: httpx.AsyncClient | None = None
        self._contexts: list[BrowserContext] = []
        self._watched: list[Watched] = []

    def persona(self, human: str, agent_suffix: str = "") -> None:
        """Plain names for the pictures in the docs (call before anything else; the
        names must be unused in the run, like every desk's)."""
        assert self._human is None, "persona() comes before the user is made"
        self.name, self.unique = human, agent_suffix

    @property
    def _file_name(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", self.test_name)

    @property
    def base_url(self) -> str:
        return self.api.base_url

    async def human(self, *, is_admin: bool = False) -> httpx.AsyncClient:
        """The desk's user, created on first use (an admin if the first call says so);
        its REST client (cookie session)."""
        if self._human is None:
            self._human = await self.api.human(self.name, is_admin=is_admin)
        return self._human

    async def agent(self, name: str, workspace: tuple[str, str]) -> httpx.AsyncClient:
        """A registered agent `name + unique`, its REST client."""
        return await self.api.agent(f"{name}{self.unique}", [workspace])

    def agent_name(self, name: str) -> str:
        return f"{name}{self.unique}"

    async def seed_inbox(self, mails: int, *, unread_share: float = 0.2) -> None:
        """`mails` mails in the desk's inbox through the store's bulk path, one
        conversation per 10 mails, none archived."""
        await self.human()
        plan = InboxFill(
            mails=mails,
            recipient=lambda _seq, _rng: self.name,
            conversations=max(1, mails // 10),
            unread_share=unread_share,
            archived_share=0.0,
            batch=5_000,
            prefix=f"seed-{self.unique}",
        )
        await fill_inbox(self.api.gateway.store, plan)

    async def open(
        self,
        size: Size = "desktop",
        theme: Theme = "light",
        *,
        reduced_motion: Literal["reduce", "no-preference"] = "no-preference",
        bypass_csp: bool = False,
        sign_in: bool = True,
        path: str = "/inbox",
        language: Language = "en",
    ) -> Page:
        """A new browser context at `size` in `theme` (the system's colour scheme, which
        the UI follows by default) and in `language` (the browser's, which the UI follows
        too), signed in through the login form."""
        await self.human()
        context = await self.browser.new_context(
            base_url=self.base_url,
            viewport=SIZES[size],
            color_scheme=theme,
            reduced_motion=reduced_motion,
            locale=LOCALES[language],
            timezone_id="UTC",
            bypass_csp=bypass_csp,
            has_touch=size != "desktop",
            is_mobile=False,
        )
        context.set_default_timeout(15_000)
        if TRACING:
            await context.tracing.start(screenshots=True, snapshots=True, sources=False)
        self._contexts.append(context)
        page = await context.new_page()
        watched = Watched(page, checks_csp=not bypass_csp)
        page.on("console", watched.on_console)
        page.on("pageerror", watched.on_error)
        self._watched.append(watched)
        await page.goto(path)
        if sign_in:
            await self.sign_in(page, language)
        return page

    async def sign_in(self, page: Page, language: Language = "en") -> None:
        await page.get_by_label(text(language, "login.username")).fill(self.name)
        await page.get_by_label(text(language, "login.password")).fill(PASSWORD)
        await page.get_by_role("button", name=text(language, "login.signIn")).click()
        await page.get_by_role("navigation", name=text(language, "nav.label")).wait_for()

    async def screenshot(self, page: Page, view: str, size: Size, theme: Theme) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=SCREENSHOTS / f"{view}-{size}-{theme}.png")

    async def close(self, *, failed: bool = False) -> None:
        if failed:
            (SCREENSHOTS / "failed").mkdir(parents=True, exist_ok=True)
            for n, watched in enumerate(self._watched):
                if not watched.page.is_closed():
                    path = SCREENSHOTS / "failed" / f"{self._file_name}-{n}.png"
                    await watched.page.screenshot(path=path, full_page=True)
        if TRACING:
            (SCREENSHOTS / "traces").mkdir(parents=True, exist_ok=True)
            for n, context in enumerate(self._contexts):
                path = SCREENSHOTS / "traces" / f"{self._file_name}-{n}.zip"
                await context.tracing.stop(path=path)
        problems: list[str] = []
        for watched in self._watched:
            problems += [f"uncaught error: {text}" for text in watched.errors]
            if watched.checks_csp:
                problems += [f"CSP violation: {text}" for text in watched.csp_violations]
        for context in self._contexts:
            await context.close()
        assert not problems, "\n".join(problems)

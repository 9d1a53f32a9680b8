"""The browser suite's fixtures: one gateway, one Chromium, one fresh human per test.

Everything here lives on the session's event loop (each test module says
`pytest.mark.asyncio(loop_scope="session")`), so one gateway and one browser
serve the whole run: starting Chromium costs about a second, a gateway a bit
less, and the suite has a budget of minutes on two cores. Tests stay
independent by never sharing a user: each gets its own human (and agents with
their own names), so one test's mail is never in another's inbox.

SQLite only: the storage suites already run every query on both backends; what
is tested here is the browser's side.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Generator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Playwright, async_playwright

from gateway.server import Gateway
from tests.e2e.desk import Desk
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, missing_prerequisites
from tests.support.gateway import Api, running_gateway

_names = itertools.count(1)
FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="session", autouse=True)
def prerequisites() -> None:
    missing = missing_prerequisites()
    if missing:
        pytest.fail("the e2e suite cannot run:\n  " + "\n  ".join(missing), pytrace=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def e2e_gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    root: Path = tmp_path_factory.mktemp("e2e-gateway")
    async with running_gateway(f"sqlite:///{root / 'agentmail.db'}", root / "data") as gateway:
        yield gateway


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def e2e_api(e2e_gateway: Gateway) -> AsyncIterator[Api]:
    api = Api(e2e_gateway)
    try:
        yield api
    finally:
        await api.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def playwright() -> AsyncIterator[Playwright]:
    async with async_playwright() as driver:
        yield driver


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(playwright: Playwright) -> AsyncIterator[Browser]:
    launched = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        yield launched
    finally:
        await launched.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether the test itself failed: the desk then keeps its pages' pictures."""
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture
def unique() -> str:
    """A name no other test of the run uses (user and agent names are global)."""
    return f"t{next(_names):03d}"


@pytest_asyncio.fixture(loop_scope="session")
async def desk(
    browser: Browser, e2e_api: Api, unique: str, request: pytest.FixtureRequest
) -> AsyncIterator[Desk]:
    opened = Desk(browser, e2e_api, unique, test_name=request.node.name)
    try:
        yield opened
    finally:
        await opened.close(failed=request.node.stash.get(FAILED, False))

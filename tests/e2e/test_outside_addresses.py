"""The Account page's outside addresses on a gateway that mails (a local smarthost): an
address added shows its code field ("We mailed a code to …"), and the code the
smarthost received verifies it; on a 390x844 phone too, with nothing wider than the
screen. The gateway is this module's own: the suite's has no smarthost, and then the
page says no code can be mailed (web/src/features/account, vitest)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from tests.e2e.desk import Desk, Size
from tests.e2e.probes import overflowing, settled
from tests.support.gateway import Api, running_gateway
from tests.support.smarthost import Smarthost, smarthost

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest_asyncio.fixture(loop_scope="session")
async def mailing(tmp_path: Path) -> AsyncIterator[tuple[Api, Smarthost]]:
    async with (
        smarthost() as host,
        running_gateway(
            f"sqlite:///{tmp_path / 'agentmail.db'}",
            tmp_path / "data",
            smarthost=host.address,
            smarthost_tls="none",
        ) as gateway,
    ):
        api = Api(gateway)
        try:
            yield api, host
        finally:
            await api.close()


async def _code(host: Smarthost, address: str) -> str:
    """The code in the first mail the smarthost took for `address` (bounded wait)."""
    async with asyncio.timeout(30):
        while True:
            for message in host.received:
                found = re.search(rb"code: (\d{6})", message.data)
                if address in message.rcpt_tos and found:
                    return found.group(1).decode()
            host.arrived.clear()
            await host.arrived.wait()


async def _add(page: Page, address: str) -> None:
    section = page.get_by_role("region", name="Outside addresses")
    await section.get_by_label("Address outside the gateway").fill(address)
    await section.get_by_role("button", name="Add").click()
    await expect(section.get_by_text(f"We mailed a code to {address}")).to_be_visible()
    await expect(section.get_by_label("6-digit code")).to_be_visible()


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_an_outside_address_is_added_and_verified(
    browser: Browser, mailing: tuple[Api, Smarthost], unique: str, size: Size
) -> None:
    api, host = mailing
    desk = Desk(browser, api, unique, test_name=f"outside-addresses-{size}")
    try:
        page = await desk.open(size, path="/account")
        address = f"{desk.name}@example.com"
        await _add(page, address)
        if size == "phone":
            await settled(page)
            assert await overflowing(page) == []
        section = page.get_by_role("region", name="Outside addresses")
        await section.get_by_label("6-digit code").fill(await _code(host, address))
        await section.get_by_role("button", name="Verify").click()
        await expect(section.get_by_text("Verified", exact=True)).to_be_visible()
        await expect(section.get_by_label("6-digit code")).to_have_count(0)
    finally:
        await desk.close()

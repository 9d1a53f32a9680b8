"""docs/imap.md lists exactly the capabilities the server advertises, before and
after login: every advertised capability is documented."""

from __future__ import annotations

import asyncio
import imaplib
import re
from pathlib import Path

from gateway.server import Gateway
from tests.support.gateway import ADMIN_PASSWORD

DOC = (Path(__file__).resolve().parents[2] / "docs" / "imap.md").read_text(encoding="utf-8")


def _documented() -> tuple[set[str], set[str]]:
    section = DOC.split("### Capabilities", 1)[1].split("A test compares", 1)[0]
    before, after = section.split("after login", 1)
    tokens = re.compile(r"`([A-Za-z0-9=+\-]+?)(?:=<bytes>)?`")
    pre = {t for t in tokens.findall(before) if t != "STARTTLS"}  # only with a certificate
    return pre, set(tokens.findall(after))


def _advertised(port: int) -> tuple[set[str], set[str]]:
    client = imaplib.IMAP4("127.0.0.1", port)
    try:
        before = {c.upper() for c in client.capabilities}
        client.login("admin", ADMIN_PASSWORD)
        _, data = client.capability()
        after = {
            c.split("=")[0] if c.startswith("APPENDLIMIT") else c
            for c in data[0].decode().upper().split()
        }
        return before, after
    finally:
        client.logout()


async def test_the_documented_capabilities_are_the_advertised_ones(gateway: Gateway) -> None:
    before, after = await asyncio.to_thread(_advertised, gateway.imap_port)
    documented_before, documented_after = _documented()
    assert before == {c.upper() for c in documented_before}
    assert after == {c.upper().removesuffix("=") for c in documented_after}

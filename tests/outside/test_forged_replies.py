"""Forged replies from outside decide nothing: each is stored in the conversation marked
"not verified, not a decision" with its reason, and alice gets the postmaster's notice
saying why. A made-up token never gets past RCPT TO. On both databases, in
`make test-outside` (the smoke of the honest reply is tests/integration's)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosmtplib
import pytest

from tests.support.outside import OutsideWorld
from tests.support.replies import (
    ALICE_OUTSIDE,
    header,
    outside_marks,
    permission_state,
    reply,
    request_copy,
    verify_alice,
    wired_gateway,
)

pytestmark = pytest.mark.outside


async def _marks(wired: object, count: int) -> list[tuple[bool, str]]:
    async with asyncio.timeout(30):
        while len(marks := await outside_marks(wired)) < count:  # type: ignore[arg-type]
            await asyncio.sleep(0.1)
    return marks


async def test_forged_replies_decide_nothing(
    outside_world: OutsideWorld, database_url: str, tmp_path: Path
) -> None:
    world = outside_world
    async with wired_gateway(world, database_url, tmp_path) as wired:
        await verify_alice(wired)
        mail_id, copy = await request_copy(wired, "May I drop the table?")
        reply_to = header(copy, "Reply-To").strip("<>")
        dkim = world.dkim

        # Right token, from another address of the same (signed, DMARC-passing) domain.
        other = dkim.sign(reply(copy, "1", sender="mallory@outside.test"))
        await world.send_from_outside(other, "mallory@outside.test", reply_to)
        # From: spoofed as alice, no DKIM, from a host outside.test's SPF does not list.
        spoofed = reply(copy, "1")
        await _direct(world, spoofed, ALICE_OUTSIDE, reply_to)
        # A DKIM pass of another domain (not aligned with From: outside.test).
        world.dns.set_txt("sel._domainkey.elsewhere.test", world.dkim.record_text)
        unaligned = dkim.sign(reply(copy, "1"), domain="elsewhere.test")
        await _direct(world, unaligned, ALICE_OUTSIDE, reply_to)

        marks = await _marks(wired, 3)
        assert [decided for decided, _ in marks] == [False, False, False]
        reasons = sorted(reason for _, reason in marks)
        assert reasons[0].startswith("the From address is not the external address")
        assert all(r.startswith("the sender's domain is not proven") for r in reasons[1:])
        assert await permission_state(wired, mail_id) == "open"

        # A wrong token is refused before any data: nothing stored, nothing decided.
        forged = reply_to.replace("reply+", "reply+a", 1)[:-1]
        token = reply_to.split("+", 1)[1].split("@")[0]
        wrong = f"reply+{token[:-1]}{'b' if token[-1] != 'b' else 'c'}@{world.gateway_domain}"
        for rcpt in (wrong, forged):
            with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
                await _direct(world, reply(copy, "1", to=rcpt), ALICE_OUTSIDE, rcpt)
        assert len(await outside_marks(wired)) == 3

        notices = await wired.alice.get("/api/v1/me/mail/inbox", params={"limit": 50})
        subjects = [m["subject"] for m in notices.json()["mails"]]
        assert subjects.count("Not verified: May I drop the table?") == 3


async def _direct(world: OutsideWorld, message: bytes, sender: str, rcpt: str) -> None:
    """Straight to the gateway's MX from the test's own address (root namespace): a host
    that outside.test's SPF does not list."""
    await aiosmtplib.send(
        message,
        sender=sender,
        recipients=[rcpt],
        hostname=world.gateway_address,
        port=world.gateway_port,
        start_tls=False,
    )

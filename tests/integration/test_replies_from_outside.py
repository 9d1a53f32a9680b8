"""Replies from outside, smoke: a permission request reaches alice's own mailbox
through the world's Postfix, DKIM-signed by the gateway; her signed reply `1`, relayed
by Postfix to the gateway's MX listener, decides it and the agent's stream says so; the
same reply again decides nothing; a stranger is refused at RCPT TO. The forged replies
are tests/outside/test_forged_replies.py's (make test-outside)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosmtplib
import dkim
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
from tests.support.sse import open_stream

pytestmark = pytest.mark.outside


async def test_a_reply_from_alices_own_mailbox_decides_once(
    outside_world: OutsideWorld, database_url: str, tmp_path: Path
) -> None:
    world = outside_world
    async with wired_gateway(world, database_url, tmp_path) as wired:
        await verify_alice(wired)
        async with open_stream(wired.builder) as agent_events:
            mail_id, copy = await request_copy(wired, "May I deploy to production?")

            def verify(message: bytes) -> bool:
                return bool(dkim.verify(message, dnsfunc=world.dns.dkim_dnsfunc))

            assert await asyncio.to_thread(verify, copy)  # signed by agentmail.test
            reply_to = header(copy, "Reply-To").strip("<>")
            assert reply_to.startswith("reply+") and reply_to.endswith("@agentmail.test")
            assert "1. approve" in copy.decode()

            answer = world.dkim.sign(reply(copy, "1"))
            await world.send_from_outside(answer, ALICE_OUTSIDE, reply_to)
            decision = await agent_events.next_of("permission_decision", timeout=30)
            assert decision.json["decision"] == "approve"
        assert await permission_state(wired, mail_id) == "decided"

        await world.send_from_outside(answer, ALICE_OUTSIDE, reply_to)  # the same again
        async with asyncio.timeout(30):
            while len(await outside_marks(wired)) < 2:
                await asyncio.sleep(0.1)
        assert await outside_marks(wired) == [
            (True, "verified"),
            (False, "this reply address has already decided once"),
        ]


async def test_a_stranger_is_refused_at_rcpt(
    outside_world: OutsideWorld, database_url: str, tmp_path: Path
) -> None:
    world = outside_world
    async with wired_gateway(world, database_url, tmp_path) as wired:
        await verify_alice(wired)
        client = aiosmtplib.SMTP(hostname=world.gateway_address, port=world.gateway_port)
        async with client:
            await client.ehlo()
            await client.mail("bob@stranger.test")
            made_up = "reply+" + "a" * 42 + "@agentmail.test"
            for rcpt in ("alice@agentmail.test", "builder@agentmail.test", made_up):
                with pytest.raises(aiosmtplib.SMTPRecipientRefused) as refused:
                    await client.rcpt(rcpt)
                assert refused.value.code == 550
                assert "5.7.1" in refused.value.message

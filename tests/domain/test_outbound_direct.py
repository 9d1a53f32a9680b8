"""Direct delivery (`AGENTMAIL_SMARTHOST=direct`) in the outside world: the MX of
`outside.test` is looked up in the world's DNS and the mail handed to its Postfix on
port 25, which delivers it to alice's Dovecot mailbox; an MX that refuses connections
is passed over for the next one; a domain with a null MX (RFC 7505) is one
"undeliverable" notice, and nothing is tried again."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from dnslib import MX
from sqlalchemy import select

from core.outbound.allowed import set_user_outbound
from core.relay.sender import OutboundSender
from core.secrets.box import SecretBox
from core.settings import Limits, Settings
from core.store.file_blobs import FileBlobs
from core.store.models import OutboundJob, utcnow
from tests.domain.world import Actor, D, World
from tests.support.outside import OutsideWorld

pytestmark = pytest.mark.outside
BOX = SecretBox(b"k" * 32)


def _direct(world: World, outside: OutsideWorld, tmp_path: Path) -> OutboundSender:
    settings = Settings(smarthost="direct", dns_servers=outside.address("dns"))
    return OutboundSender(world.store, BOX, FileBlobs(tmp_path), settings, D)


async def _jianf(world: World) -> Actor:
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    return jianf


async def test_a_mail_goes_to_the_mx_and_lands_in_alices_mailbox(
    world: World, outside_world: OutsideWorld, tmp_path: Path
) -> None:
    jianf = await _jianf(world)
    # A first MX where nothing listens (connection refused): passed over for the next.
    outside_world.dns.set_a(f"down.{outside_world.outside_domain}", outside_world.address("dns"))
    outside_world.dns.zones.records[(outside_world.outside_domain, "MX")] = [
        MX(f"down.{outside_world.outside_domain}.", 5),
        MX(f"mx.{outside_world.outside_domain}.", 10),
    ]
    sent = await jianf.send(to="mailto:alice@outside.test", subject="Direct")
    assert await _direct(world, outside_world, tmp_path).run_once() == 1
    (job,) = await world.store.read(lambda s: list(s.scalars(select(OutboundJob))))
    assert job.state == "sent", job.last_error
    message_id = str(sent["message_id"]).encode()
    (stored,) = await outside_world.wait_for_mail(lambda raw: message_id in raw)
    assert b"Subject: Direct" in stored
    assert f"Return-Path: <postmaster+{sent['mail_id']}.{job.id}@{D}>".encode() in stored


async def test_a_null_mx_is_one_undeliverable_notice(
    world: World, outside_world: OutsideWorld, tmp_path: Path
) -> None:
    jianf = await _jianf(world)
    outside_world.dns.set_mx("nomail.outside.test", ".", 0)
    await jianf.send(to="mailto:bob@nomail.outside.test", subject="Nowhere")
    sender = _direct(world, outside_world, tmp_path)
    assert await sender.run_once() == 1
    assert await sender.run_once(utcnow() + timedelta(days=1)) == 0  # never tried again
    (job,) = await world.store.read(lambda s: list(s.scalars(select(OutboundJob))))
    assert job.state == "failed" and job.last_error.startswith("556 5.1.10")
    notices = [m for m in await jianf.inbox() if m["mail_type"] == "notice"]
    assert len(notices) == 1
    body = (await jianf.mail(str(notices[0]["mail_id"])))["body"]
    assert "bob@nomail.outside.test" in body and "null MX" in body

"""Outbound mail on both backends, through a real local smarthost (aiosmtpd): a mail to
`mailto:` is stored and delivered once, DKIM-signed, with its stored Message-ID; a
sender not enabled is refused with nothing stored; 4xx is tried again on the schedule,
5xx and giving up end in one postmaster notice; over a rate limit a job waits.

Time is driven by `run_once(now=...)`: a job is made due by asking at its due time,
never by sleeping."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import dkim
import pytest
from sqlalchemy import func, select

from core.outbound.allowed import set_agent_outbound, set_user_outbound
from core.outbound.allowlist import set_agent_allowlist
from core.outbound.queue import retry_delay
from core.relay.dkim_key import generate_dkim_key, save_dkim_key
from core.relay.sender import OutboundSender
from core.secrets.box import SecretBox
from core.settings import Limits, Settings
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import Mail, OutboundJob, utcnow
from tests.domain.world import Actor, D, World, refused
from tests.support.smarthost import Smarthost, smarthost

BOB = "mailto:bob@example.com"
BOX = SecretBox(b"k" * 32)


@pytest.fixture
async def host() -> AsyncIterator[Smarthost]:
    async with smarthost() as running:
        yield running


def _sender(store: Store, host: Smarthost, tmp_path: object, **settings: object) -> OutboundSender:
    chosen = Settings(smarthost=host.address, smarthost_tls="none", **settings)  # type: ignore[arg-type]
    return OutboundSender(store, BOX, FileBlobs(tmp_path), chosen, D)  # type: ignore[arg-type]


async def _jianf(world: World) -> Actor:
    """A human enabled for outbound mail, on a gateway with a smarthost."""
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    return jianf


async def _jobs(store: Store) -> list[OutboundJob]:
    rows = await store.read(lambda s: list(s.scalars(select(OutboundJob).order_by(OutboundJob.id))))
    return rows


async def _mails(store: Store) -> int:
    return int(await store.read(lambda s: s.scalar(select(func.count()).select_from(Mail))))


async def test_a_mail_outside_arrives_once_signed_with_its_message_id(
    world: World, host: Smarthost, tmp_path: object
) -> None:
    jianf = await _jianf(world)
    key = generate_dkim_key("sel1", "ed25519")
    await save_dkim_key(world.store, BOX, key)
    sent = await jianf.send(to=BOB, subject="Hello", body="from inside")
    stored = await jianf.mail(sent["mail_id"])
    assert stored["to"] == BOB
    sender = _sender(world.store, host, tmp_path)
    assert await sender.run_once() == 1
    assert await sender.run_once() == 0  # settled: never sent twice
    (got,) = host.received
    (job,) = await _jobs(world.store)
    bounces_to = f"postmaster+{sent['mail_id']}.{job.id}@{D}"  # the job's bounce address
    assert got.rcpt_tos == ["bob@example.com"] and got.mail_from == bounces_to
    assert got.message_id == sent["message_id"]
    record = key.record().encode()
    assert dkim.verify(got.data, dnsfunc=lambda name, timeout=5: record)
    assert (await _jobs(world.store))[0].state == "sent"


async def test_a_sender_not_enabled_is_refused_and_nothing_is_stored(world: World) -> None:
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    message = await refused(jianf.send(to=BOB, subject="x"), "outbound_not_allowed")
    assert "admin" in message
    await refused(builder.send(to="jianf@", cc=[BOB], subject="x"), "outbound_not_allowed")
    assert await _mails(world.store) == 0 and await _jobs(world.store) == []
    await set_agent_outbound(world.store, "builder", True)
    await set_agent_allowlist(world.store, "builder", ["example.com"], D)  # else held
    await builder.send(to="jianf@", cc=[BOB], subject="copied outside")
    (job,) = await _jobs(world.store)
    assert (job.sender, job.recipient, job.state) == ("builder", "bob@example.com", "queued")


async def test_no_smarthost_no_mail_outside(world: World) -> None:
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    assert "smarthost" in await refused(jianf.send(to=BOB), "outbound_not_allowed")


async def test_a_bare_address_is_never_outside(world: World) -> None:
    jianf = await world.human("jianf")
    await refused(jianf.send(to="bob@example.com"), "unknown_recipient")


async def test_deferred_then_delivered_with_the_same_message_id(
    world: World, host: Smarthost, tmp_path: object
) -> None:
    jianf = await _jianf(world)
    sent = await jianf.send(to=BOB, subject="later")
    host.answers.append("451 4.3.0 try again later")
    sender = _sender(world.store, host, tmp_path)
    now = utcnow()
    assert await sender.run_once(now) == 1
    (job,) = await _jobs(world.store)
    assert (job.state, job.attempts) == ("queued", 1) and job.last_error.startswith("451")
    assert await sender.run_once(now + timedelta(minutes=29)) == 0  # not due yet
    assert await sender.run_once(now + timedelta(minutes=31)) == 1
    (got,) = host.received
    assert host.tried == 2 and got.message_id == sent["message_id"]


async def test_refused_for_good_is_one_notice(
    world: World, host: Smarthost, tmp_path: object
) -> None:
    jianf = await _jianf(world)
    sent = await jianf.send(to=BOB, subject="doomed")
    host.answers.append("550 5.1.1 no such user")
    sender = _sender(world.store, host, tmp_path)
    await sender.run_once()
    assert await sender.run_once(utcnow() + timedelta(days=1)) == 0
    (job,) = await _jobs(world.store)
    assert job.state == "failed"
    notices = [m for m in await jianf.inbox() if m["mail_type"] == "notice"]
    assert len(notices) == 1
    notice = await jianf.mail(notices[0]["mail_id"])
    assert notice["session_id"] == sent["session_id"]
    assert "bob@example.com" in notice["body"] and "550 5.1.1 no such user" in notice["body"]


async def test_given_up_after_the_give_up_time(
    world: World, host: Smarthost, tmp_path: object
) -> None:
    jianf = await _jianf(world)
    await jianf.send(to=BOB, subject="slow")
    host.answers.extend(["421 4.4.2 busy"] * 3)
    sender = _sender(world.store, host, tmp_path, outbound_give_up="2h")
    now = utcnow()
    await sender.run_once(now)  # next try in 30 min
    await sender.run_once(now + timedelta(minutes=31))  # then in 1 h
    await sender.run_once(now + timedelta(minutes=95))  # 2 h more would pass the give-up
    (job,) = await _jobs(world.store)
    assert job.state == "expired" and host.received == []
    notices = [m for m in await jianf.inbox() if m["mail_type"] == "notice"]
    assert (
        len(notices) == 1 and "stopped trying" in (await jianf.mail(notices[0]["mail_id"]))["body"]
    )


async def test_over_the_rate_limit_a_job_waits(
    world: World, host: Smarthost, tmp_path: object
) -> None:
    jianf = await _jianf(world)
    await jianf.send(to=BOB, cc=["mailto:carol@example.org"], subject="two")
    sender = _sender(world.store, host, tmp_path, outbound_per_sender_per_hour=1)
    now = utcnow()
    await sender.run_once(now)
    assert len(host.received) == 1
    waiting = [job for job in await _jobs(world.store) if job.state == "queued"]
    assert len(waiting) == 1 and waiting[0].attempts == 0  # handed back untried
    await sender.run_once(now + timedelta(minutes=2))
    assert len(host.received) == 1  # still within the hour
    await sender.run_once(now + timedelta(minutes=61))
    assert len(host.received) == 2


def test_the_retry_schedule() -> None:
    minimum = timedelta(minutes=30)
    waits = [retry_delay(n, minimum) for n in range(1, 6)]
    assert waits == [timedelta(minutes=m) for m in (30, 60, 120, 120, 120)]
    assert all(wait >= timedelta(minutes=30) for wait in waits)  # RFC 5321 §4.5.4.1


async def test_reply_is_a_reserved_name(world: World) -> None:
    await refused(world.human("reply"), "name_taken")

"""Bounces of outbound mail on both backends: a mail delivered through a real local
smarthost (aiosmtpd) comes back as a DSN to its bounce address; recorded, it is one
postmaster notice in the sender's conversation, and a second report for the same
recipient adds nothing; a report found by Message-ID alone works the same; a report
that comes before the sender recorded the `250` counts as well; a bounce of no mail
of ours writes nothing. Settled jobs are pruned after their keeping."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.outbound.allowed import set_user_outbound
from core.outbound.prune import BOUNCE_WINDOW, prune_outbound_jobs
from core.outbound.queue import RATE_WINDOW, Claimed, Outcome, Rates, claim, settle
from core.relay.bounce_record import record_bounce
from core.relay.bounces import read_bounce
from core.relay.sender import OutboundSender
from core.secrets.box import SecretBox
from core.settings import Limits, Settings
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import OutboundJob, utcnow
from tests.domain.world import Actor, D, World
from tests.support.smarthost import Smarthost, smarthost

BOX = SecretBox(b"k" * 32)


@pytest.fixture
async def host() -> AsyncIterator[Smarthost]:
    async with smarthost() as running:
        yield running


async def _sent(world: World, host: Smarthost, tmp_path: Path, *to: str) -> tuple[Actor, str]:
    """jianf's mail to `to`, delivered; (jianf, the mail's Message-ID)."""
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    sent = await jianf.send(to=to[0], cc=list(to[1:]), subject="Hello")
    chosen = Settings(smarthost=host.address, smarthost_tls="none")
    await OutboundSender(world.store, BOX, FileBlobs(tmp_path), chosen, D).run_once()
    assert len(host.received) == len(to)
    return jianf, str(sent["message_id"])


def _report(recipient: str, message_id: str, envid: str = "") -> bytes:
    """A delivery status notification (RFC 3464) as a remote MTA writes one."""
    envelope = f"Original-Envelope-Id: {envid}\r\n" if envid else ""
    return (
        "From: MAILER-DAEMON@mx.example.com\r\nSubject: Undelivered Mail\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status;"
        ' boundary="B"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nSorry.\r\n'
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"Reporting-MTA: dns; mx.example.com\r\n{envelope}\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 mailbox unavailable\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: {message_id}\r\nSubject: Hello\r\n\r\n--B--\r\n"
    ).encode()


async def _notices(jianf: Actor) -> list[dict[str, object]]:
    return [m for m in await jianf.inbox() if m["mail_type"] == "notice"]


async def _jobs(store: Store) -> list[OutboundJob]:
    return await store.read(lambda s: list(s.scalars(select(OutboundJob).order_by(OutboundJob.id))))


async def test_a_bounce_to_the_job_address_is_one_notice(
    world: World, host: Smarthost, tmp_path: Path
) -> None:
    jianf, _ = await _sent(world, host, tmp_path, "mailto:bob@example.com")
    bounces_to = host.received[0].mail_from
    bounce = read_bounce(_report("bob@example.com", ""), envelope_recipient=bounces_to)
    assert bounce is not None and bounce.envelope_id is not None
    assert await record_bounce(world.store, bounce, D) == 1
    assert await record_bounce(world.store, bounce, D) == 0  # the same report again
    (notice,) = await _notices(jianf)
    body = (await jianf.mail(str(notice["mail_id"])))["body"]
    assert "bob@example.com" in body and "550 5.1.1 mailbox unavailable" in body
    assert "delivery status notification" in body
    assert [job.state for job in await _jobs(world.store)] == ["bounced"]


async def test_a_report_found_by_message_id_marks_only_its_recipient(
    world: World, host: Smarthost, tmp_path: Path
) -> None:
    jianf, message_id = await _sent(
        world, host, tmp_path, "mailto:bob@example.com", "mailto:carol@example.org"
    )
    bounce = read_bounce(_report("Carol@example.org", message_id))
    assert bounce is not None and bounce.envelope_id is None
    assert await record_bounce(world.store, bounce, D) == 1
    again = read_bounce(_report("carol@example.org", message_id, envid="not ours"))
    assert again is not None and await record_bounce(world.store, again, D) == 0
    assert len(await _notices(jianf)) == 1
    states = {job.recipient: job.state for job in await _jobs(world.store)}
    assert states == {"bob@example.com": "sent", "carol@example.org": "bounced"}


async def test_a_bounce_of_no_mail_of_ours_writes_nothing(
    world: World, host: Smarthost, tmp_path: Path
) -> None:
    jianf, _ = await _sent(world, host, tmp_path, "mailto:bob@example.com")
    stray = read_bounce(_report("bob@example.com", "<someone-else@example.net>"))
    forged = read_bounce(
        _report("bob@example.com", "", envid="0b6c3f7e-1c2d-4e5f-8a9b-0123456789ab.1")
    )
    assert stray is not None and forged is not None
    assert await record_bounce(world.store, stray, D) == 0
    assert await record_bounce(world.store, forged, D) == 0
    assert await _notices(jianf) == []


async def test_settled_jobs_are_pruned_after_their_keeping(
    world: World, host: Smarthost, tmp_path: Path
) -> None:
    await _sent(world, host, tmp_path, "mailto:bob@example.com", "mailto:carol@example.org")
    jobs = await _jobs(world.store)
    now = utcnow()

    def settle_long_ago(session: Session) -> None:
        session.execute(
            update(OutboundJob)
            .where(OutboundJob.id == jobs[1].id)
            .values(state="failed", settled_at=now - RATE_WINDOW - timedelta(minutes=1))
        )

    await world.store.write(settle_long_ago)
    ana = await world.human("ana")
    await set_user_outbound(world.store, "ana", True)
    await ana.send(to="mailto:dora@example.com", subject="still queued")
    later = now + RATE_WINDOW + timedelta(minutes=1)
    assert await prune_outbound_jobs(world.store, later) == 1  # the failed one
    assert {j.state for j in await _jobs(world.store)} == {"sent", "queued"}
    assert await prune_outbound_jobs(world.store, now + BOUNCE_WINDOW + timedelta(minutes=1)) == 1
    assert [j.state for j in await _jobs(world.store)] == ["queued"]  # never a queued one


async def test_a_bounce_before_the_senders_record_of_its_250_is_one_notice(
    world: World,
) -> None:
    """The far side took the mail and reported it undeliverable before the sender had
    recorded the `250`: the report marks the in-flight job, and the settle after it
    leaves the job bounced. A job not tried yet is not marked."""
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    await set_user_outbound(world.store, "jianf", True)
    sent = await jianf.send(to="mailto:bob@example.com", subject="Hello")
    (job,) = await _jobs(world.store)
    bounces_to = f"postmaster+{sent['mail_id']}.{job.id}@{D}"
    bounce = read_bounce(_report("bob@example.com", ""), envelope_recipient=bounces_to)
    assert bounce is not None
    assert await record_bounce(world.store, bounce, D) == 0  # not taken yet: no bounce

    now = utcnow()
    rates = Rates(100, 100)
    (claimed,) = await world.store.write(lambda s: claim(s, now, 10, rates, timedelta(minutes=5)))
    assert await record_bounce(world.store, bounce, D) == 1  # in flight: taken
    assert await record_bounce(world.store, bounce, D) == 0

    def settle_sent(session: Session) -> None:
        settled: list[tuple[Claimed, Outcome, str]] = [(claimed, "sent", "250 ok")]
        settle(session, settled, now, give_up=timedelta(days=5), minimum=timedelta(minutes=30))

    await world.store.write(settle_sent)
    (job,) = await _jobs(world.store)
    assert (job.state, job.claimed_until) == ("bounced", None)
    assert job.settled_at is not None  # pruned as a sent job is
    assert len(await _notices(jianf)) == 1

"""The outbound sender: each round (every second, from the gateway's background jobs)
claims the due jobs, renders each mail once with its stored Message-ID (a resend is
the same message), signs it with the DKIM key when there is one, hands it to the
smarthost, and settles the jobs in one transaction — with one postmaster notice in
the sender's conversation for each recipient that failed or was given up on.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.approvals.postmaster import MAX_SUBJECT, write_notice
from core.outbound.queue import Claimed, Outcome, Rates, any_due, claim, settle
from core.relay.dkim_key import DkimKey, load_dkim_key
from core.relay.reply_to import reply_address, reply_tokens_of, with_reply_to
from core.relay.smarthost import Smarthost, deliver
from core.rendering.stored import render_stored
from core.secrets.box import SecretBox
from core.secrets.reply_token import ensure_reply_key
from core.settings.outbound import OutboundSettings
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import Mail, utcnow

__all__ = ["OutboundSender", "undeliverable_notice"]

BATCH = 10


class OutboundSender:
    """One per gateway process; replicas share the jobs through the database."""

    def __init__(
        self,
        store: Store,
        box: SecretBox,
        blobs: BlobStore,
        settings: OutboundSettings,
        domain: str,
    ) -> None:
        self.store = store
        self.box = box
        self.blobs = blobs
        self.settings = settings
        self.domain = domain
        self.smarthost = Smarthost.from_settings(settings, domain)
        self.rates = Rates(
            settings.outbound_per_sender_per_hour, settings.outbound_per_domain_per_hour
        )

    async def run_once(self, now: datetime | None = None) -> int:
        """Send what is due at `now` (default: now); the number of jobs tried."""
        at = now or utcnow()
        if not await self.store.read(lambda s: any_due(s, at)):
            return 0
        lease = self.smarthost.lease
        jobs = await self.store.write(lambda s: claim(s, at, BATCH, self.rates, lease))
        if not jobs:
            return 0
        key = await load_dkim_key(self.store, self.box)  # an admin may make one any time
        replies = await self._reply_addresses(jobs)
        rendered: dict[str, asyncio.Task[bytes]] = {}
        messages: dict[tuple[str, str], asyncio.Task[bytes]] = {}
        for job in jobs:
            if job.mail_id not in rendered:
                rendered[job.mail_id] = asyncio.ensure_future(
                    render_stored(self.store, self.blobs, self.domain, job.mail_id)
                )
            which = (job.mail_id, replies.get(job.job_id, ""))
            if which not in messages:
                messages[which] = asyncio.ensure_future(
                    self._message(rendered[job.mail_id], which[1], key)
                )
        outcomes = await asyncio.gather(
            *(self._send(job, messages[job.mail_id, replies.get(job.job_id, "")]) for job in jobs)
        )
        results = [
            (job, outcome, reply) for job, (outcome, reply) in zip(jobs, outcomes, strict=True)
        ]
        settled_at = now or utcnow()

        def record(session: Session) -> None:
            ended = settle(
                session,
                results,
                settled_at,
                give_up=self.settings.outbound_give_up,
                minimum=self.settings.outbound_retry_minimum,
            )
            for job, state, reply in ended:
                _notify(session, self.domain, job, reply, given_up=state == "expired")

        await self.store.write(record)
        return len(jobs)

    async def _reply_addresses(self, jobs: list[Claimed]) -> dict[int, str]:
        """The Reply-To of each job that is a copy to a human's external address."""
        tokens = await self.store.read(lambda s: reply_tokens_of(s, jobs))
        if not tokens:
            return {}
        key = await ensure_reply_key(self.store, self.box)
        found = {}
        for job in jobs:
            token_id = tokens.get((job.mail_id, job.sender, job.recipient))
            if token_id is not None:
                found[job.job_id] = reply_address(key, token_id, job, self.domain)
        return found

    async def _message(
        self, rendered: asyncio.Future[bytes], reply_to: str, key: DkimKey | None
    ) -> bytes:
        message = await rendered
        if reply_to:
            message = with_reply_to(message, reply_to)
        if key is not None:
            signature = await asyncio.to_thread(key.sign, message, self.domain)
            message = signature + message
        return message

    async def _send(self, job: Claimed, message: asyncio.Future[bytes]) -> tuple[Outcome, str]:
        return await deliver(self.smarthost, job.envelope_sender, job.recipient, await message)


def undeliverable_notice(
    subject: str, recipient: str, reply: str, given_up: bool
) -> tuple[str, str]:
    """Subject and body of the notice to the sender of a mail a recipient did not get."""
    why = (
        "The smarthost kept deferring it, and the gateway has stopped trying."
        if given_up
        else "The receiving side refused it for good."
    )
    body = (
        f'Your mail "{subject}" could not be delivered to {recipient}.\n\n{why}\n\n'
        f"The server's last reply:\n    {' '.join(reply.split())}\n"
    )
    return f"Undeliverable: {subject}"[:MAX_SUBJECT], body


def _notify(session: Session, domain: str, job: Claimed, reply: str, *, given_up: bool) -> None:
    row = session.execute(
        select(Mail.session_id, Mail.subject).where(Mail.id == job.mail_id)
    ).first()
    if row is None:
        return
    subject, body = undeliverable_notice(row.subject, job.recipient, reply, given_up)
    write_notice(
        session,
        domain,
        to=job.sender,
        conversation_id=row.session_id,
        parent_id=job.mail_id,
        subject=subject,
        body=body,
    )

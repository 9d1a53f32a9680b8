"""The outbound sender: each round (when a commit queued mail or a job falls due,
core/store/due_jobs.py) claims the due jobs, renders each mail once with its stored
Message-ID (a resend is the same message), signs it with the DKIM key when there is one,
hands it to the smarthost (or, with `AGENTMAIL_SMARTHOST=direct`, to the recipient
domain's MX: core/relay/direct.py) from the job's bounce address
(core/relay/envelope.py), and settles the jobs in one transaction — with one postmaster
notice in the sender's conversation for each recipient that failed or was given up on.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import dns.resolver
from sqlalchemy.orm import Session

from core.mailauth.resolver import make_resolver, parse_servers
from core.outbound.queue import Claimed, Outcome, Rates, any_due, claim, settle
from core.relay.direct import DirectDelivery
from core.relay.dkim_key import DkimKey, load_dkim_key
from core.relay.envelope import EnvelopeId, bounce_address
from core.relay.notices import notify_undeliverable
from core.relay.reply_to import reply_address, reply_tokens_of, with_reply_to
from core.relay.smarthost import Smarthost, deliver
from core.rendering.stored import render_stored
from core.secrets.box import SecretBox
from core.secrets.reply_token import ensure_reply_key
from core.settings.outbound import DIRECT, OutboundSettings
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import utcnow

__all__ = ["OutboundSender"]

BATCH = 10
MAX_ROUNDS = 50  # batches one `run_due` sends before it lets the next tick come


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
        self.direct: DirectDelivery | None = None
        if settings.smarthost == DIRECT:
            template = f"{domain}:{settings.outbound_mx_port}"  # host: each MX's, per try
            self.smarthost = Smarthost.from_settings(
                settings.model_copy(update={"smarthost": template}), domain
            )
            servers = parse_servers(settings.dns_servers)
            resolver = make_resolver(servers) if servers else dns.resolver.get_default_resolver()
            self.direct = DirectDelivery(resolver, self.smarthost)
        else:
            self.smarthost = Smarthost.from_settings(settings, domain)
        self.rates = Rates(
            settings.outbound_per_sender_per_hour, settings.outbound_per_domain_per_hour
        )

    async def run_due(self) -> int:
        """Batch after batch while full ones are due (a backlog is not sent at ten a
        second), at most MAX_ROUNDS; the number of jobs tried."""
        total = 0
        for _ in range(MAX_ROUNDS):
            tried = await self.run_once()
            total += tried
            if tried < BATCH:
                break
        return total

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
                notify_undeliverable(
                    session,
                    self.domain,
                    mail_id=job.mail_id,
                    sender=job.sender,
                    recipient=job.recipient,
                    reply=reply,
                    why="given_up" if state == "expired" else "refused",
                )

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
        envelope = EnvelopeId(job.mail_id, job.job_id)
        mail_from = bounce_address(envelope, self.domain)  # bounces name the job
        if self.direct is not None:
            return await self.direct.deliver(mail_from, job.recipient, await message, str(envelope))
        return await deliver(self.smarthost, mail_from, job.recipient, await message, str(envelope))

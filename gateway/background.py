"""The gateway's background jobs: sweeps, prunes, backfills and the senders of what
was queued with a commit (Web Push, webhooks, outbound mail).

Each job runs in a loop of its own, and a failed round is logged and does not end it.
Sweeps and prunes run on a period; the senders and the requests' deadlines run when
there is work (core/store/due_jobs.py). `enabled=False` (tests that count statements)
starts none of them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from core.approvals.permissions import expire_permission_requests, next_expiry
from core.identity.agents import mark_silent_agents_offline
from core.identity.signed_in import CHECK_EVERY_SECONDS, SignedIn
from core.mail.attachments import collect_unsent
from core.mail.excerpt_backfill import fill_excerpts
from core.mail.idempotency import prune_idempotency_keys
from core.mail.new_mail import DEADLINE_WAKE
from core.mailboxes.expunged import prune_expunged
from core.outbound.prune import prune_outbound_jobs
from core.outbound.queue import WAKE as OUTBOUND_WAKE
from core.outbound.queue import next_due as next_outbound
from core.push.jobs import WAKE as PUSH_WAKE
from core.push.jobs import next_due as next_push
from core.push.sender import PushSender
from core.relay.sender import OutboundSender
from core.rendering.backfill import Filler
from core.secrets.box import SecretBox
from core.settings import Settings
from core.store.blobs import BlobStore
from core.store.due_jobs import run_when_due, then_next_due
from core.store.engine import Store
from core.store.events import prune_events
from core.store.models import utcnow
from core.tasks import cancel_and_wait
from core.webhooks.deliveries import RetryPolicy, prune_deliveries
from core.webhooks.sender import WebhookSender

log = logging.getLogger("agentmail")


class BackgroundJobs:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        secrets: SecretBox,
        blobs: BlobStore,
        *,
        enabled: bool,
    ) -> None:
        self.settings = settings
        self.store = store
        self.blobs = blobs
        self.secrets = secrets
        self.enabled = enabled
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, stack: AsyncExitStack, signed_in: SignedIn, filler: Filler) -> None:
        if not self.enabled:
            return
        settings, store = self.settings, self.store
        self._every(CHECK_EVERY_SECONDS, signed_in.sweep)
        self._every(settings.heartbeat_seconds / 3, self._sweep_presence)
        self._every(3600, self._prune)
        self._when_due(self._expire_requests, DEADLINE_WAKE, next_expiry, "expiry")
        # Web Push: the jobs queued with requests and questions, sent by one replica each.
        pushes = PushSender(
            store,
            self.secrets,
            contact=f"mailto:postmaster@{settings.domain}",
            allow_private=settings.push_allow_private_endpoints,
        )
        stack.push_async_callback(pushes.close)
        self._when_due(pushes.run_once, PUSH_WAKE, next_push, "web push")
        # Webhooks: deliveries made from the events after COMMIT, posted by one replica each.
        hooks = WebhookSender(
            store,
            self.secrets,
            allow_private=settings.webhook_allow_private_endpoints,
            policy=RetryPolicy(
                max_attempts=settings.webhook_max_attempts,
                base_seconds=settings.webhook_retry_seconds,
                disable_after=settings.webhook_disable_after,
            ),
        )
        stack.push_async_callback(hooks.close)
        self._task(hooks.run(), "webhooks")
        if settings.smarthost:  # outbound mail: the jobs queued with mails to mailto:
            outbound = OutboundSender(store, self.secrets, self.blobs, settings, settings.domain)
            self._when_due(outbound.run_due, OUTBOUND_WAKE, next_outbound, "outbound")
        ttl_seconds = settings.attachment_ttl_hours * 3600
        self._every(min(3600.0, max(1.0, ttl_seconds / 4)), self._collect_attachments)
        # Kept structures: the backfill and IMAP's write-back (core/rendering/backfill.py).
        self._task(
            self._again_on_failure(filler.run, "kept structures", forever=True), "kept structures"
        )
        # The list rows' excerpts of mail stored before them (core/mail/excerpt_backfill.py).
        backfill = self._again_on_failure(lambda: fill_excerpts(store), "excerpts", forever=False)
        self._task(backfill, "excerpts")

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks, "background jobs")
        self._tasks.clear()

    def _task(self, coroutine: Coroutine[Any, Any, None], name: str) -> None:
        self._tasks.append(asyncio.create_task(coroutine, name=name))

    def _when_due(
        self,
        job: Callable[[], Awaitable[object]],
        wake: str,
        next_due: Callable[[Session], datetime | None],
        name: str,
    ) -> None:
        self._task(
            run_when_due(self.store, then_next_due(self.store, job, next_due), wake, name), name
        )

    def _every(self, seconds: float, job: Callable[[], Awaitable[object]]) -> None:
        async def loop() -> None:
            while True:
                await asyncio.sleep(seconds)
                try:
                    await job()
                except Exception:  # a failed round must not end the loop
                    log.exception("background job %s failed", job.__name__)

        self._task(loop(), job.__name__)

    @staticmethod
    async def _again_on_failure(
        run: Callable[[], Awaitable[object]], what: str, *, forever: bool
    ) -> None:
        """`run` until it returns (or, `forever`, again each time it returns); a failure
        is logged and tried again in a minute (what was done stays done)."""
        while True:
            try:
                await run()
                if not forever:
                    return
            except Exception:
                log.exception("%s: the backfill failed; again in a minute", what)
                await asyncio.sleep(60)

    async def _sweep_presence(self) -> None:
        offline_after = timedelta(seconds=self.settings.offline_after_seconds)
        await mark_silent_agents_offline(self.store, offline_after)

    async def _expire_requests(self) -> None:
        await expire_permission_requests(self.store)

    async def _prune(self) -> None:
        retention = timedelta(days=self.settings.event_retention_days)
        await prune_events(self.store, retention)
        await prune_deliveries(self.store, retention)
        await prune_idempotency_keys(self.store)
        await prune_outbound_jobs(self.store)  # settled jobs past the limits and bounces
        expunged = timedelta(days=self.settings.imap_expunge_retention_days)
        await prune_expunged(self.store, expunged)  # QRESYNC's (core/mailboxes/expunged.py)

    async def _collect_attachments(self) -> None:
        ttl = timedelta(hours=self.settings.attachment_ttl_hours)
        await collect_unsent(self.store, self.blobs, utcnow() - ttl)

"""Posting the claimed deliveries, signed per the Standard Webhooks specification.

A round first turns new events into deliveries (core/webhooks/fanout.py), then claims
the due deliveries, posts them at once and settles them in one transaction. Rounds run
when a commit wrote events (in any replica: the store's wake-ups, `WAKE`) and when the
next delivery falls due (a retry; core/store/due_jobs.py), and not otherwise. Each
request carries `webhook-id` (`evt_` and the event id: the same on every try and on a
replay, so a receiver can tell a repeat), `webhook-timestamp` and `webhook-signature`
(HMAC-SHA256 under the endpoint's `whsec_` secret, by the `standardwebhooks` package).
The URL is checked again before each try, on what its name resolves to now
(core/push/endpoints.py). Connecting may take 5 s and the whole exchange 10 s; no
redirect is followed; at most 64 KiB of the answer is read, then the connection is
closed. A 2xx answer delivers; anything else is a failed try.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from datetime import datetime

import httpx
from sqlalchemy.orm import Session
from standardwebhooks import Webhook

from core.errors import InvalidRequest
from core.secrets.box import SecretBox, SecretUnreadable
from core.store.due_jobs import run_when_due
from core.store.engine import Store
from core.store.models import utcnow
from core.webhooks.deliveries import (
    Claimed,
    Outcome,
    RetryPolicy,
    any_due,
    claim,
    next_due,
    settle,
)
from core.webhooks.endpoints import check_url, secret_purpose
from core.webhooks.fanout import BATCH as FAN_OUT_BATCH
from core.webhooks.fanout import IDLE_ADVANCE, any_endpoint, fan_out
from core.webhooks.queue import WAKE

log = logging.getLogger(__name__)
BATCH = 20
CONNECT_SECONDS = 5.0
TOTAL_SECONDS = 10.0
MAX_ANSWER_BYTES = 64 * 1024
FAN_OUT_ROUNDS = 10  # batches of events one round turns into deliveries at most


def signed_headers(secret: str, msg_id: str, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of `body`, signed now."""
    now = utcnow()
    return {
        "content-type": "application/json",
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, now, body),
    }


class WebhookSender:
    """One per gateway process; replicas share the deliveries through the database."""

    def __init__(
        self, store: Store, box: SecretBox, *, allow_private: bool, policy: RetryPolicy
    ) -> None:
        self.store = store
        self.box = box
        self.allow_private = allow_private
        self.policy = policy
        timeout = httpx.Timeout(TOTAL_SECONDS, connect=CONNECT_SECONDS)
        self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self._idle_advanced = -math.inf
        self._caught_up = True  # the last round fanned out every event it found

    async def close(self) -> None:
        await self._client.aclose()

    async def run(self) -> None:
        """Rounds until cancelled: at each wake-up, when the next delivery falls due, and
        at once again while events wait to be fanned out."""
        await run_when_due(self.store, self._round, WAKE, "webhook deliveries")

    async def _round(self) -> datetime | None:
        await self.run_once()
        return await self.store.read(next_due) if self._caught_up else utcnow()

    async def run_once(self) -> int:
        """Make the deliveries of new events, then post what is due now; the number of
        deliveries tried."""
        await self._fan_out()
        now = utcnow()
        if not await self.store.read(lambda s: any_due(s, now)):
            return 0
        jobs = await self.store.write(lambda s: claim(s, now, BATCH))
        if not jobs:
            return 0
        outcomes = await asyncio.gather(*(self._deliver(job) for job in jobs))
        results = list(zip(jobs, outcomes, strict=True))

        def record(session: Session) -> None:
            settle(session, results, self.policy, utcnow())

        await self.store.write(record)
        return len(jobs)

    async def _fan_out(self) -> None:
        """Deliveries from the events past the cursor (a few batches at most a round:
        `_caught_up` says whether more wait); with no endpoint at all, only a read, and
        now and then the cursor moved on."""
        self._caught_up = True
        if not await self.store.read(any_endpoint):
            if time.monotonic() - self._idle_advanced < IDLE_ADVANCE.total_seconds():
                return
            self._idle_advanced = time.monotonic()
            await self.store.write(lambda s: fan_out(s, advance_if_idle=True))
            return
        for _ in range(FAN_OUT_ROUNDS):
            if await self.store.write(fan_out) < FAN_OUT_BATCH:
                return
        self._caught_up = False

    async def _deliver(self, job: Claimed) -> Outcome:
        try:
            await check_url(job.url, allow_private=self.allow_private)
            secret = self.box.open(job.sealed_secret, secret_purpose(job.endpoint_id))
        except (InvalidRequest, SecretUnreadable) as error:
            log.warning("webhook delivery %s not sent: %s", job.delivery_id, error)
            return Outcome(False, None, str(error))
        body = json.dumps(job.payload, separators=(",", ":")).encode("utf-8")
        headers = signed_headers(secret.decode("ascii"), f"evt_{job.event_id}", body)
        try:
            async with asyncio.timeout(TOTAL_SECONDS):
                status = await self._post(job.url, body, headers)
        except (httpx.HTTPError, TimeoutError) as error:
            log.info("webhook delivery %s: %r; tried again later", job.delivery_id, error)
            return Outcome(False, None, type(error).__name__ + (f": {error}" if str(error) else ""))
        if 200 <= status < 300:
            return Outcome(True, status)
        log.info("webhook delivery %s: answered %s", job.delivery_id, status)
        return Outcome(False, status, f"HTTP {status}")

    async def _post(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        """The answer's status, having read at most `MAX_ANSWER_BYTES` of its body."""
        async with self._client.stream("POST", url, content=body, headers=headers) as answer:
            read = 0
            async for chunk in answer.aiter_raw():
                read += len(chunk)
                if read >= MAX_ANSWER_BYTES:
                    break
            return answer.status_code

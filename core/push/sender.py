"""Sending the claimed pushes, and what each push service's answer means for the job.

A round (when a commit queued pushes or a job falls due: core/store/due_jobs.py) claims the
due jobs, posts them at once, and settles them in one transaction: 2xx is done; 404 and
410 say the subscription is gone (RFC 8030 §7.3) and it is deleted; 429, 5xx and network
errors are tried again with backoff; any other answer drops the job (it would fail
again).
"""

from __future__ import annotations

import asyncio
import logging

import httpx
from sqlalchemy.orm import Session

from core.errors import InvalidRequest
from core.push.endpoints import check_endpoint
from core.push.jobs import Claimed, Outcome, any_due, claim, settle
from core.push.keys import ensure_vapid_key
from core.push.message import push_request
from core.secrets.box import SecretBox
from core.store.engine import Store
from core.store.models import utcnow

log = logging.getLogger(__name__)
BATCH = 20


def outcome_of(status: int) -> Outcome:
    if 200 <= status < 300:
        return "sent"
    if status in (404, 410):
        return "gone"
    if status == 429 or status >= 500:
        return "retry"
    return "dropped"


class PushSender:
    """One per gateway process; replicas share the jobs through the database."""

    def __init__(self, store: Store, box: SecretBox, *, contact: str, allow_private: bool) -> None:
        self.store = store
        self.box = box
        self.contact = contact  # the VAPID `sub`: whom a push service may write to
        self.allow_private = allow_private
        self._key: str | None = None
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(10.0), follow_redirects=False)

    async def close(self) -> None:
        await self._client.aclose()

    async def run_once(self) -> int:
        """Send what is due now; the number of pushes tried."""
        now = utcnow()
        if not await self.store.read(lambda s: any_due(s, now)):
            return 0
        if self._key is None:
            self._key = await ensure_vapid_key(self.store, self.box)
        jobs = await self.store.write(lambda s: claim(s, now, BATCH))
        if not jobs:
            return 0
        outcomes = await asyncio.gather(*(self._send(job) for job in jobs))
        results = list(zip(jobs, outcomes, strict=True))

        def record(session: Session) -> None:
            settle(session, results, utcnow())

        await self.store.write(record)
        return len(jobs)

    async def _send(self, job: Claimed) -> Outcome:
        assert self._key is not None
        try:
            await check_endpoint(job.target.endpoint, allow_private=self.allow_private)
            request = push_request(job.payload, job.target, self._key, self.contact)
        except (InvalidRequest, ValueError) as error:
            log.warning("push %s to %s dropped: %s", job.job_id, job.owner, error)
            return "dropped"
        try:
            response = await self._client.post(
                request.url, headers=request.headers, content=request.body
            )
        except httpx.HTTPError as error:
            log.info("push %s to %s: %s; tried again later", job.job_id, job.owner, error)
            return "retry"
        outcome = outcome_of(response.status_code)
        if outcome != "sent":
            log.info("push %s to %s: %s (%s)", job.job_id, job.owner, response.status_code, outcome)
        return outcome

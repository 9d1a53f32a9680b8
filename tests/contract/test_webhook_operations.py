"""The store operations of webhooks (core/webhooks), run the same way on SQLite and
PostgreSQL, in process, as the routes and the sender call them: endpoints registered
(ana's own, and the admins'), mail's events turned into one delivery per endpoint that
hears them, deliveries claimed and settled (one delivered, the others given
up on until the endpoint is disabled, with its `webhook_disabled` event), enabled
again, a secret rotated, an event replayed, an endpoint deleted with what it was
owed, finished deliveries pruned.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from core.secrets.box import SecretBox
from core.store.engine import Store
from core.store.models import utcnow
from core.webhooks.deliveries import Outcome, RetryPolicy, claim, prune_deliveries, settle
from core.webhooks.endpoints import (
    delete_endpoint,
    enable_endpoint,
    list_deliveries,
    register_endpoint,
    rotate_secret,
)
from core.webhooks.fanout import fan_out
from core.webhooks.owners import Who
from core.webhooks.queue import replay
from tests.contract.scenario import ANA, BUILDER, assert_same_rows, send
from tests.support.two_stores import Stores

URL = "http://127.0.0.1:9/hooks"
BOX = SecretBox(b"the contract suite's secret key, 32+ characters")
POLICY = RetryPolicy(max_attempts=1, base_seconds=1.0, disable_after=2)


async def _round(store: Store, delivered: bool) -> int:
    """Claim what is due and settle it as `delivered` or failed; how many."""

    def run(session: Session) -> int:
        fan_out(session)  # the deliveries of the events since the last round
        now = utcnow() + timedelta(seconds=1)
        jobs = claim(session, now, 20)
        outcome = Outcome(True, 204) if delivered else Outcome(False, 500, "HTTP 500")
        settle(session, [(job, outcome) for job in jobs], POLICY, now)
        return len(jobs)

    return await store.write(run)


async def endpoints_and_deliveries(store: Store) -> None:
    ana, admins = Who("ana"), Who("admin", everyone=True)
    mine = await register_endpoint(
        store, BOX, ana, URL, ["mail.received", "question.asked"], "ci", allow_private=True
    )
    everyone = await register_endpoint(
        store, BOX, admins, URL + "/all", ["mail.received"], "", allow_private=True
    )
    gone = await register_endpoint(
        store, BOX, ana, URL + "/old", ["mail.received"], "", allow_private=True
    )
    await send(store, BUILDER, "ana@", "Hello")  # to mine, gone and everyone's
    assert await _round(store, delivered=True) == 3
    await send(store, BUILDER, "ana@", "Which?", question=True)  # mine only
    await send(store, ANA, "builder@", "Thanks")  # everyone's only
    assert await _round(store, delivered=False) == 2
    await send(store, BUILDER, "ana@", "Again")  # mine, gone and everyone's
    assert await _round(store, delivered=False) == 3  # the second failure: both disabled
    await send(store, BUILDER, "ana@", "Unheard")  # gone's only: the others are disabled
    await enable_endpoint(store, ana, mine.webhook_id)
    await rotate_secret(store, BOX, ana, mine.webhook_id)
    first = (await list_deliveries(store, ana, mine.webhook_id))[-1]
    await replay(store, ana, mine.webhook_id, first.event_id)
    await delete_endpoint(store, ana, gone.webhook_id)
    assert everyone.scope == "all"
    assert await prune_deliveries(store, timedelta(0)) > 0


async def test_both_backends_leave_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, endpoints_and_deliveries)

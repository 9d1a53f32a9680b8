"""A background loop ends when its stop cancels it, even when a commit wakes it in the
same turn: on Python 3.11 `asyncio.wait_for` lost that cancellation and the webhook
sender's loop ran on, holding the gateway's stop (tests/unit/test_no_wait_for.py keeps
`wait_for` out of the code)."""

from __future__ import annotations

import asyncio

from core.secrets.box import SecretBox
from core.store.engine import Store
from core.webhooks.deliveries import RetryPolicy
from core.webhooks.queue import WAKE
from core.webhooks.sender import WebhookSender

POLICY = RetryPolicy(max_attempts=1, base_seconds=1.0, disable_after=2)
HANG_BOUND_SECONDS = 30  # a bound on a hang, not a measure: it ends at once


async def test_the_webhook_sender_stops_when_cancelled_as_a_commit_wakes_it(store: Store) -> None:
    sender = WebhookSender(store, SecretBox(b"k" * 32), allow_private=True, policy=POLICY)
    try:
        task = asyncio.create_task(sender.run())
        await asyncio.sleep(0.5)  # its first round done: it waits to be woken
        store.bus.publish([WAKE])  # a commit's wake-up and the stop, in one turn
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=HANG_BOUND_SECONDS)
        assert task in done and task.cancelled()
    finally:
        await sender.close()

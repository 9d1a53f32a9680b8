"""Waiting before trying again: exponential, capped, with jitter.

Jitter spreads the reconnects of many bridges after a gateway restart, so they
do not all arrive in the same instant ("Exponential Backoff And Jitter", AWS
Architecture Blog, 2015): each wait is drawn between half and all of the
exponential step.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx

from bridges.client.errors import GatewayError

_T = TypeVar("_T")
_log = logging.getLogger("agentmail.bridge.client")


@dataclass(frozen=True, slots=True)
class Backoff:
    base: float = 0.5
    cap: float = 30.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1` (attempt 0 is the first retry)."""
        step = min(self.cap, self.base * 2 ** min(attempt, 30))
        return random.uniform(step / 2, step)


async def patiently(
    call: Callable[[], Awaitable[_T]], what: str, backoff: Backoff = Backoff(0.5, 30.0)
) -> _T:
    """`call()` until the gateway answers it: while the gateway is unreachable or
    answers 5xx/429, wait (one log line per attempt) and try again. For calls that are
    safe to repeat (an idempotency key, or a read): a bridge whose gateway restarts
    finishes its work when the gateway is back, rather than dropping it."""
    attempt = 0
    while True:
        try:
            return await call()
        except (httpx.TransportError, GatewayError) as error:
            if isinstance(error, GatewayError) and not error.retryable:
                raise
            reason = str(error) if isinstance(error, GatewayError) else type(error).__name__
            _log.warning("%s: the gateway is not reachable (%s); trying again", what, reason)
        await asyncio.sleep(backoff.delay(attempt))
        attempt += 1

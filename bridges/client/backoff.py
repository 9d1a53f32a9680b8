"""Waiting before trying again: exponential, capped, with jitter.

Jitter spreads the reconnects of many bridges after a gateway restart, so they
do not all arrive in the same instant ("Exponential Backoff And Jitter", AWS
Architecture Blog, 2015): each wait is drawn between half and all of the
exponential step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    base: float = 0.5
    cap: float = 30.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1` (attempt 0 is the first retry)."""
        step = min(self.cap, self.base * 2 ** min(attempt, 30))
        return random.uniform(step / 2, step)

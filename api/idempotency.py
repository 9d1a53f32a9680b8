"""The answer to a write made under an `Idempotency-Key` (core/mail/idempotency.py)."""

from __future__ import annotations

from fastapi import Response

from core.mail.idempotency import Outcome
from core.views import SendResult

REPLAYED_HEADER = "Idempotent-Replayed"


def replay_header(response: Response, outcome: Outcome) -> SendResult:
    """The result; a replay says so in `Idempotent-Replayed: true` (as Stripe's API
    does), so a client can tell "sent now" from "sent before" without comparing ids."""
    if outcome.replayed:
        response.headers[REPLAYED_HEADER] = "true"
    return outcome.result

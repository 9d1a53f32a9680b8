"""The gateway's refusals as one exception: its stable `code` and human `message`."""

from __future__ import annotations


class GatewayError(Exception):
    """A non-2xx answer: `{error: {code, message}}` (docs/api.md, Errors)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message

    @property
    def retryable(self) -> bool:
        """Worth trying again later with the same request (and idempotency key)."""
        return self.status in (408, 429, 502, 503, 504) or self.status >= 500


class KeyNotRegistered(GatewayError):
    """401: the key is not (yet) known; a generated key waits for an admin."""

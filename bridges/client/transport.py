"""How the client's requests reach the gateway: one HTTP connection, tried again where safe.

Requests that are safe to repeat (reads, and writes that carry an `Idempotency-Key`)
are tried again on a lost connection or a 5xx/429, with the same key, so "sent twice"
cannot happen; the others are tried again only when the connection failed before
anything was sent.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

from bridges.client.backoff import Backoff
from bridges.client.errors import KeyNotRegistered
from bridges.client.keys import AgentKey
from bridges.client.models import SendResult
from bridges.client.sse import error_of

API = "/api/v1"
REPLAYED_HEADER = "Idempotent-Replayed"
_log = logging.getLogger("agentmail.bridge.client")
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, made once a process: each new one loads the CA
    bundle again (tens of milliseconds of CPU), and one context serves every client."""
    return httpx.create_ssl_context()


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


class Connection:
    """One key's HTTP connection to one gateway; `AgentClient` is the API's calls on it."""

    def __init__(
        self,
        base_url: str,
        key: AgentKey | str,
        *,
        attempts: int = 4,
        backoff: Backoff = Backoff(0.25, 5.0),
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.key = key if isinstance(key, AgentKey) else AgentKey(key, "environment", Path())
        self.base_url = base_url.rstrip("/")
        self._attempts = max(1, attempts)
        self._backoff = backoff
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {self.key.secret}"},
            timeout=timeout,
            transport=transport,
            verify=tls_context(),
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _keyed(self, path: str, request: dict[str, Any], key: str | None) -> SendResult:
        headers = {"Idempotency-Key": key or new_idempotency_key()}
        response = await self._send("POST", path, json=request, headers=headers, safe=True)
        result = SendResult.model_validate(response.json())
        result.replayed = response.headers.get(REPLAYED_HEADER) == "true"
        return result

    async def _json(self, method: str, path: str, *, safe: bool | None = None, **kw: Any) -> Any:
        return (await self._send(method, path, safe=safe, **kw)).json()

    async def _send(
        self,
        method: str,
        path: str,
        *,
        safe: bool | None = None,
        attempts: int | None = None,
        **kw: Any,
    ) -> httpx.Response:
        """One request, tried again where that cannot duplicate anything (`attempts`
        times at most: the connection's setting unless given)."""
        repeatable = method == "GET" if safe is None else safe
        limit = max(1, attempts or self._attempts)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.request(method, API + path, **kw)
            except httpx.TransportError as error:
                if attempt >= limit or not (repeatable or isinstance(error, _NOT_SENT)):
                    raise
                _log.info("%s %s: %s; trying again", method, path, type(error).__name__)
                await asyncio.sleep(self._backoff.delay(attempt - 1))
                continue
            if response.is_success:
                return response
            refusal = error_of(response)
            if response.status_code == 401:
                raise KeyNotRegistered(refusal.status, refusal.code, refusal.message)
            if not (repeatable and refusal.retryable) or attempt >= limit:
                raise refusal
            await asyncio.sleep(_retry_after(response) or self._backoff.delay(attempt - 1))


def _retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (RFC 9110 §10.2.3), capped so a call does not hang."""
    value = response.headers.get("retry-after", "")
    return min(float(value), 30.0) if value.isdigit() else None

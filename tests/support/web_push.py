"""A local Web Push service for the tests: npm's `web-push-testing`, pinned in
tests/support/push_service/ and installed by `make push-service` (docs/testing.md).

It plays a browser's push service on loopback: it makes subscriptions for an
`applicationServerKey`, checks each push's VAPID signature against that key,
decrypts it (RFC 8291) and keeps the plain text for `messages`; an expired
subscription answers 410.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.ports import steady_ports

SERVER = (
    Path(__file__).resolve().parent / "push_service/node_modules/web-push-testing/src/bin/server.js"
)


class PushService:
    def __init__(self, port: int) -> None:
        self.url = f"http://localhost:{port}"
        self.client = httpx.AsyncClient(base_url=self.url, timeout=10.0)

    async def subscribe(self, application_server_key: str) -> dict[str, Any]:
        """A subscription as a browser would get it: `endpoint`, `keys`, and `clientHash`."""
        options = {"userVisibleOnly": "true", "applicationServerKey": application_server_key}
        response = await self.client.post("/subscribe", data=options)  # a form, as it wants
        assert response.status_code == 200, response.text
        subscription: dict[str, Any] = response.json()["data"]
        return subscription

    async def messages(self, client_hash: str) -> list[dict[str, Any]]:
        response = await self.client.post("/get-notifications", json={"clientHash": client_hash})
        assert response.status_code == 200, response.text
        return [json.loads(text) for text in response.json()["data"]["messages"]]

    async def next_messages(self, client_hash: str, count: int = 1) -> list[dict[str, Any]]:
        """Wait (up to 20 s) until `count` pushes have arrived."""
        for _ in range(200):
            found = await self.messages(client_hash)
            if len(found) >= count:
                return found
            await asyncio.sleep(0.1)
        raise AssertionError(f"{count} push(es) expected, {len(found)} arrived")

    async def expire(self, client_hash: str) -> None:
        response = await self.client.post(f"/expire-subscription/{client_hash}")
        assert response.status_code < 300, response.text


@asynccontextmanager
async def push_service() -> AsyncIterator[PushService]:
    node = shutil.which("node")
    if node is None or not SERVER.exists():
        pytest.skip("web-push-testing is not installed (make push-service)")
    port = steady_ports(1)[0]
    process = await asyncio.create_subprocess_exec(
        node, str(SERVER), str(port), stdout=asyncio.subprocess.DEVNULL
    )
    service = PushService(port)
    try:
        for _ in range(200):
            try:
                if (await service.client.post("/status")).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.returncode is None, "web-push-testing ended at start"
            await asyncio.sleep(0.05)
        yield service
    finally:
        await service.client.aclose()
        process.terminate()
        await process.wait()

"""A real gateway on its own event loop in a worker thread, for synchronous clients.

Schemathesis calls the server with blocking `requests` (and its checks send
requests of their own while validating), so the gateway cannot share the test's
loop: it runs here in a thread, and the test talks to its real port.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from gateway.server import Gateway
from tests.support import databases
from tests.support.gateway import Api, running_gateway

T = TypeVar("T")
START_TIMEOUT = 60.0


@contextmanager
def gateway_in_thread(
    backend: str,
    tmp_path: Path,
    prepare: Callable[[Api], Awaitable[T]],
    **settings: Any,
) -> Iterator[tuple[Gateway, T]]:
    """Start a gateway on `backend` (a fresh database), run `prepare(api)` on its loop,
    and yield (gateway, what prepare returned) until the block ends."""
    ready = threading.Event()
    outcome: dict[str, Any] = {}

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / 'agentmail.db'}"
        else:
            url = await databases.create_postgres_database()
        try:
            async with running_gateway(url, tmp_path / "data", **settings) as gateway:
                api = Api(gateway)
                try:
                    outcome["prepared"] = await prepare(api)
                    outcome["gateway"] = gateway
                    outcome["stop"] = lambda: loop.call_soon_threadsafe(stop.set)
                    ready.set()
                    await stop.wait()
                finally:
                    await api.close()
        finally:
            if backend != "sqlite":
                await databases.release_postgres_database(url)

    def run() -> None:
        try:
            asyncio.run(serve())
        except BaseException as exc:  # reported to the test's thread
            outcome["error"] = exc
        finally:
            ready.set()

    thread = threading.Thread(target=run, name=f"gateway-{backend}", daemon=True)
    thread.start()
    if not ready.wait(START_TIMEOUT) or "error" in outcome:
        thread.join(START_TIMEOUT)
        raise RuntimeError("the gateway did not start") from outcome.get("error")
    try:
        yield outcome["gateway"], outcome["prepared"]
    finally:
        outcome["stop"]()
        thread.join(START_TIMEOUT)
        if "error" in outcome:
            raise RuntimeError("the gateway failed while stopping") from outcome["error"]

"""Cross-replica wake-ups on PostgreSQL: LISTEN/NOTIFY feeding the local event bus.

Every write transaction that adds events also sends `NOTIFY agentmail_events`
with its store's token and the recipients' names (core/store/engine.py), and `!credentials` when it
changed a key or a user (core/store/credentials.py); PostgreSQL delivers it at commit to
every gateway replica listening here, which wakes its local streams. The rows
stay the source of truth: a lost notification only delays a stream until the
next wake, and after a reconnect every local stream is woken to re-read. A process's
own notifications come back to it too: it ignores them, having pushed those
events to its streams at commit (core/store/bus.py). The same connection listens for
the other processes' failed logins (core/cluster/login_notices.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from core.cluster.login_notices import LOGINS_CHANNEL, told_names
from core.store.bus import EventBus
from core.store.credentials import CREDENTIALS_CHANGED
from core.store.engine import NOTIFY_CHANNEL, WAKE_ALL, Store
from core.tasks import cancel_and_wait

log = logging.getLogger("agentmail.replicas")


class ReplicaListener:
    def __init__(
        self,
        store: Store,
        bus: EventBus,
        retry_seconds: float = 1.0,
        login_failed: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.bus = bus
        self.login_failed = login_failed  # the throttle's count of another's failure
        self.retry_seconds = retry_seconds
        self.connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        if payload == WAKE_ALL:  # too many names to list: credentials may be among them
            self.store.credentials.drop_all()
            self.bus.publish_all()
            return
        names = payload.split("\n")
        if names[0] == self.store.token:
            return  # this store's own write: its streams were told at commit
        names = [name for name in names if not name.startswith("@")]  # another's token
        if CREDENTIALS_CHANGED in names:  # a key or user changed on some replica
            self.store.credentials.drop_all()
            names.remove(CREDENTIALS_CHANGED)
        self.bus.publish(names)

    def _on_login_failed(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        if self.login_failed is not None:
            for name in told_names(payload, self.store.token):
                self.login_failed(name)

    async def _listen_once(self) -> None:
        async with self.store.engine.connect() as connection:
            raw = await connection.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            lost = asyncio.Event()
            driver.add_termination_listener(lambda _conn: lost.set())
            await driver.add_listener(NOTIFY_CHANNEL, self._on_notify)
            await driver.add_listener(LOGINS_CHANNEL, self._on_login_failed)
            self.connected.set()
            # Anything committed while we were not listening: let streams re-read,
            # and forget credentials that may have changed meanwhile.
            self.store.credentials.drop_all()
            self.bus.publish_all()
            try:
                await lost.wait()
            finally:
                self.connected.clear()
                with contextlib.suppress(Exception):
                    await driver.remove_listener(NOTIFY_CHANNEL, self._on_notify)
                    await driver.remove_listener(LOGINS_CHANNEL, self._on_login_failed)

    async def _run(self) -> None:
        while True:
            try:
                await self._listen_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("lost the LISTEN connection; retrying", exc_info=True)
            await asyncio.sleep(self.retry_seconds)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="replica-listener")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                await self.connected.wait()

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task], "replica listener")
            self._task = None

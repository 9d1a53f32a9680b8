"""Failed logins told to every other gateway process on PostgreSQL (workers and replicas).

The login throttle (core/identity/throttle.py) counts failures in memory; with
`--workers N` or several replicas each process would count only the guesses that
reached it, and an attacker spread over N processes would guess N times as fast.
Each failure is therefore sent as `NOTIFY agentmail_login_failures, '<token>\\n<name>…'`
(the names are client addresses or `account:<user>`); every process's ReplicaListener
(core/store/replicas.py, which reads them with `told_names`) counts the others' in its own
throttle. Notices are sent after the answer, by one task: a failed login is never
slowed by them, and a lost notice (the database away) only makes the throttle per
process for a moment, which is what it was.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from core.tasks import cancel_and_wait

LOGINS_CHANNEL = "agentmail_login_failures"
MAX_WAITING = 1000  # names not yet sent; past it a failure is counted here only
_PAYLOAD_BYTES = 7000  # under PostgreSQL's 8,000-byte NOTIFY payload
_NAME_CHARS = 200  # an address or `account:` + 64 characters (core/identity/logins.py)

log = logging.getLogger("agentmail.replicas")
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


class LoginNotices:
    """Sends this process's failed logins to the others (`tell`): one sender task at a
    time, many names to a notice, so a flood of failures holds one database connection."""

    def __init__(self, engine: AsyncEngine, token: str) -> None:
        self.engine = engine
        self.token = token  # the store's: its own notices come back, and are skipped
        self._waiting: deque[str] = deque(maxlen=MAX_WAITING)
        self._sender: asyncio.Task[None] | None = None

    def tell(self, name: str) -> None:
        self._waiting.append(name[:_NAME_CHARS])
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while self._waiting:
            names = [self.token]
            size = len(self.token)
            while self._waiting and size + len(self._waiting[0].encode()) < _PAYLOAD_BYTES:
                names.append(self._waiting.popleft())
                size += len(names[-1].encode()) + 1
            try:
                async with self.engine.connect() as connection:
                    payload = {"channel": LOGINS_CHANNEL, "payload": "\n".join(names)}
                    await connection.execute(_NOTIFY, payload)
                    await connection.commit()
            except Exception:
                log.warning("could not tell the other processes of failed logins", exc_info=True)

    async def close(self) -> None:
        """Let the notice in flight finish (it is short), then stop."""
        if self._sender is not None and not self._sender.done():
            await asyncio.wait({self._sender}, timeout=2)
            await cancel_and_wait([self._sender], "a failed-login notice")


def told_names(payload: str, own_token: str) -> list[str]:
    """The names in another process's notice; none for this process's own."""
    token, *names = payload.split("\n")
    if token == own_token:
        return []
    return [name for name in names if name]

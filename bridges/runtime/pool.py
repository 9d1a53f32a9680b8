"""The worker pool: different conversations at once, one conversation in order.

* at most `limit` turns run at once (default 3); more wait in their conversation's
  queue, never dropped;
* one conversation runs strictly one turn after the other (a platform session has
  one owner: two workers on one session file fork its history, seeds 003);
* a turn that ends parked (waiting for a human) frees its slot, but its
  conversation stays held until `resume` puts the rest of that turn first in line,
  so the next mail of the conversation never overtakes the parked one.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Literal

Outcome = Literal["done", "parked"]
Job = Callable[[], Awaitable[Outcome]]
_log = logging.getLogger("agentmail.bridge.pool")


class WorkerPool:
    def __init__(self, limit: int = 3) -> None:
        self._slots = asyncio.Semaphore(limit)
        self._queues: dict[str, deque[Job]] = {}
        self._runners: dict[str, asyncio.Task[None]] = {}
        self._parked: set[str] = set()
        self._early: set[str] = set()  # resumed while its parking turn was still ending
        self._idle = asyncio.Event()
        self._idle.set()

    def submit(self, conversation: str, job: Job) -> None:
        self._queues.setdefault(conversation, deque()).append(job)
        self._start(conversation)

    def park(self, conversation: str) -> None:
        """Hold a conversation whose turn waits for a human (found open at start-up)."""
        self._parked.add(conversation)

    def resume(self, conversation: str, job: Job) -> None:
        """The parked turn goes on: first in its conversation's line."""
        self._parked.discard(conversation)
        if conversation in self._runners:
            self._early.add(conversation)
        self._queues.setdefault(conversation, deque()).appendleft(job)
        self._start(conversation)

    def is_parked(self, conversation: str) -> bool:
        return conversation in self._parked

    async def wait_idle(self) -> None:
        await self._idle.wait()

    def _start(self, conversation: str) -> None:
        if conversation in self._runners or conversation in self._parked:
            return
        self._idle.clear()
        self._runners[conversation] = asyncio.create_task(
            self._drain(conversation), name=f"conversation {conversation}"
        )

    async def _drain(self, conversation: str) -> None:
        queue = self._queues[conversation]
        try:
            while queue and conversation not in self._parked:
                job = queue.popleft()
                if self._slots.locked():
                    _log.info("conversation %s waits for a free worker", conversation)
                async with self._slots:
                    try:
                        outcome = await job()
                    except Exception:
                        _log.exception("a turn in conversation %s failed", conversation)
                        outcome = "done"
                if outcome == "parked":
                    if conversation in self._early:  # its decision came already
                        self._early.discard(conversation)
                    else:
                        self._parked.add(conversation)
        finally:
            del self._runners[conversation]
            if not queue:
                self._queues.pop(conversation, None)
            if not self._runners:
                self._idle.set()

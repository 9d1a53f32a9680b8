"""A pi started ahead of need, one per workspace, so a mail does not wait for pi's start.

pi loads every provider's SDK when it starts: 1.3 s of CPU, several seconds on a busy
machine, on the path of every mail if a turn started pi itself. A spare is a pi
already started in the workspace on a fresh session (`--session-dir`, nothing
written until it is used). A turn takes it: a new conversation keeps the spare's
own session; a known one `switch_session`s to its file (pi's RPC command, which
rebuilds the session in the file's working directory). Taking one starts the
next, so a burst of mails gets one process each, never a shared one: a spare is
bound to no conversation until it is taken, and to exactly one after.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from bridges.platforms.pi.rpc import PiEnded, PiProcess

_log = logging.getLogger("agentmail.bridge.pi")
# cwd → a pi on a fresh session, answering commands; cancelled, it stops the pi it started.
Start = Callable[[str], Coroutine[Any, Any, PiProcess]]


class Spares:
    def __init__(self, start: Start, enabled: bool = True) -> None:
        self._start = start
        self.enabled = enabled
        self._ready: dict[str, asyncio.Task[PiProcess]] = {}  # cwd → the spare (or its start)

    def prepare(self, cwd: str) -> None:
        """Have a spare start in `cwd`, if there is none yet."""
        if self.enabled and cwd not in self._ready:
            self._ready[cwd] = asyncio.create_task(self._start(cwd), name=f"pi spare in {cwd}")

    async def take(self, cwd: str) -> PiProcess | None:
        """The spare of `cwd` (waiting for the rest of its start if need be), and the next
        one on its way; None when there is none, or it did not start."""
        task = self._ready.pop(cwd, None)
        self.prepare(cwd)
        if task is None:
            return None
        try:
            pi = await task
        except (PiEnded, OSError) as error:
            _log.warning("a spare pi in %s did not start: %s", cwd, error)
            return None
        return pi if pi.running else None

    async def close(self) -> None:
        tasks = list(self._ready.values())
        self._ready.clear()
        for task in tasks:
            task.cancel()  # a start cut short stops its pi itself (`Start`'s promise)
        for task in tasks:
            try:
                pi = await task
            except (asyncio.CancelledError, PiEnded, OSError):
                continue
            await pi.stop()

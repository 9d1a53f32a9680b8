"""Stopping background tasks within a bound, and naming the ones that would not stop.

A task that is cancelled usually ends at its next `await`. Some do not: on Python 3.11
`asyncio.wait_for` loses a cancellation that arrives as its inner awaitable finishes, and
a library may catch `CancelledError` in a retry loop. A stop that awaits such a task
waits forever, and a gateway that never stops cannot be restarted or upgraded. So a task
is cancelled again while it runs, the wait is bounded, and what is still running at the
end is logged with its stack instead of hanging the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)

STOP_PATIENCE_SECONDS = 10.0
"""How long a stop waits for cancelled tasks before it logs them and goes on."""

_CANCEL_AGAIN_SECONDS = 1.0


async def cancel_and_wait(
    tasks: Iterable[asyncio.Future[Any]],
    what: str,
    *,
    patience: float = STOP_PATIENCE_SECONDS,
) -> bool:
    """Cancel `tasks` and wait up to `patience` seconds for them to end, cancelling again
    every second those still running. True when all ended; else they are logged."""
    every = list(tasks)
    pending = {task for task in every if not task.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while pending:
        for task in pending:
            task.cancel()
        left = deadline - loop.time()
        if left <= 0:
            break
        _, pending = await asyncio.wait(pending, timeout=min(_CANCEL_AGAIN_SECONDS, left))
    for task in every:  # their outcome is taken: no "exception was never retrieved"
        if task.done() and not task.cancelled():
            task.exception()
    if pending:
        log.error(
            "%s: %d task(s) still running %.0f s after being cancelled:\n%s",
            what,
            len(pending),
            patience,
            "\n".join(describe(task) for task in pending),
        )
    return not pending


def describe(task: asyncio.Future[Any]) -> str:
    """A task's name and where it is waiting, for a log line."""
    if not isinstance(task, asyncio.Task):
        return repr(task)
    out = io.StringIO()
    with contextlib.suppress(Exception):  # a stack is help, never a reason to fail
        task.print_stack(limit=12, file=out)
    return out.getvalue() or repr(task)


def running_tasks() -> str:
    """Every task of the running loop but the caller's, each with its stack."""
    current = asyncio.current_task()
    return "\n".join(describe(task) for task in asyncio.all_tasks() if task is not current)

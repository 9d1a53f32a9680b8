"""aioimaplib's one private internal the IMAP import source uses, given a public name.

`IMAP4._client_task` is the task that opens the connection (aioimaplib 2.0, pinned
below 3): a greeting that times out leaves it running, and closing must cancel it or
its socket is left to the garbage collector. aioimaplib has no public way to reach it.
tests/unit/test_library_compat.py fails, naming aioimaplib's version, when a release
moves it, and when a module of core/archive reaches another private name of aioimaplib.
"""

from __future__ import annotations

import asyncio
from importlib.metadata import version

import aioimaplib  # type: ignore[import-untyped]

__all__ = ["check", "connecting_task"]


def connecting_task(client: aioimaplib.IMAP4) -> asyncio.Task[object] | None:
    """The task still opening `client`'s connection, or None once it is done."""
    task: asyncio.Task[object] | None = getattr(client, "_client_task", None)
    return task if task is not None and not task.done() else None


def check() -> None:
    """Fail, naming the version, when aioimaplib no longer has the internal."""
    annotations = getattr(aioimaplib.IMAP4, "__annotations__", {})
    if "_client_task" not in annotations:
        raise RuntimeError(
            f"aioimaplib {version('aioimaplib')} has no IMAP4._client_task:"
            " core/archive/aioimaplib_compat.py needs updating"
        )

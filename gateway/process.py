"""What a serving process does around its gateway: checks its libraries' internals
once, moves what start-up made out of the collector's reach once, and runs a gateway
until SIGINT or SIGTERM (telling systemd, gateway/notify.py)."""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

from api import fastapi_compat
from gateway.notify import notify
from imap_view import pymap_compat
from smtp_in import aiosmtpd_compat

if TYPE_CHECKING:
    from gateway.server import Gateway


@functools.cache
def check_libraries() -> None:
    """Once per process: the libraries do not change while it runs."""
    fastapi_compat.check()
    aiosmtpd_compat.check()
    pymap_compat.check()


_FROZEN: list[bool] = []


def freeze_start_up() -> None:
    """What start-up made (modules, routes, the schema, pymap's tables) lives as long as
    the process: moved out of the collector's reach once, after one collection (so no
    garbage is kept), a full collection walks only what serving made since. One held the
    loop ~100 ms, every few seconds under a client listing a big folder again and again
    (IDLE push p99 130 → 50 ms, bench/imap_fetch_structure.py). Once a process: tests
    start many gateways in one."""
    if not _FROZEN:
        _FROZEN.append(True)
        gc.collect()
        gc.freeze()


async def run_until_signalled(gateway: Gateway, on_started: Callable[[Gateway], None]) -> None:
    """Start, report, wait for SIGINT or SIGTERM, stop."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await gateway.start()
    except BaseException:  # a port in use: close what did start (HTTP, the store) first
        await gateway.stop()
        raise
    try:
        on_started(gateway)
        notify(f"READY=1\nMAINPID={os.getpid()}\nSTATUS=serving on {gateway.http_url}")
        await stop.wait()
    finally:
        notify("STOPPING=1")
        await gateway.stop()

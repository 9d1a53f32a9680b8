"""gateway/loop_watchdog.py on a loop this test blocks on purpose with `time.sleep`.

No time is asserted but through the watchdog's own account: the counter, the
histogram and the logged stack.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

import pytest
from prometheus_client import REGISTRY

from gateway.loop_watchdog import LoopWatchdog

BLOCK_SECONDS = 1.0  # four times the threshold
MARGIN = 30.0


def _stalls() -> float:
    return REGISTRY.get_sample_value("agentmail_loop_stalls_total") or 0.0


def _ended() -> float:
    return REGISTRY.get_sample_value("agentmail_loop_stall_seconds_count") or 0.0


def hold_the_loop() -> None:
    time.sleep(BLOCK_SECONDS)  # on the loop: nothing else runs meanwhile


async def test_a_blocked_loop_is_counted_and_its_stack_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="agentmail.loop")
    stalls, ended = _stalls(), _ended()
    watchdog = LoopWatchdog()
    watchdog.start()
    try:
        await asyncio.sleep(0.2)  # a few beats first
        hold_the_loop()
        for _ in range(int(MARGIN / 0.05)):  # until the watchdog saw the loop turn again
            if _ended() > ended:
                break
            await asyncio.sleep(0.05)
    finally:
        watchdog.stop()
    assert _stalls() == stalls + 1
    assert _ended() == ended + 1
    began = [r.getMessage() for r in caplog.records if "stalled" in r.getMessage()]
    assert len(began) == 1, began
    assert "hold_the_loop" in began[0] and "time.sleep(BLOCK_SECONDS)" in began[0], began[0]
    assert any("stall ended after" in r.getMessage() for r in caplog.records)
    assert all(r.levelno == logging.WARNING for r in caplog.records if r.name == "agentmail.loop")


def _slow_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        time.sleep(BLOCK_SECONDS)  # inside the collection, as a collection of a huge heap


async def test_a_garbage_collection_is_no_stall() -> None:
    """A collection holds the loop as long as the heap takes to walk: the test's own
    heap, in a test process; no code on the loop caused it."""
    stalls = _stalls()
    watchdog = LoopWatchdog()
    watchdog.start()
    gc.callbacks.append(_slow_collection)  # after the watchdog's: inside its window
    try:
        await asyncio.sleep(0.2)
        gc.collect()
        await asyncio.sleep(0.5)  # beats again, seen on time
    finally:
        gc.callbacks.remove(_slow_collection)
        watchdog.stop()
    assert _stalls() == stalls


async def test_stop_ends_the_thread_and_the_beat() -> None:
    watchdog = LoopWatchdog()
    watchdog.start()
    watchdog.stop()
    assert watchdog._thread is not None and not watchdog._thread.is_alive()

"""Stopping tasks within a bound (core/tasks.py): a cancellation a task loses is given
again, and a task that will not end is named in the log instead of hanging the stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from core.tasks import cancel_and_wait


async def _loses_one_cancellation(ended: asyncio.Event) -> None:
    # What Python 3.11's wait_for can do when its inner call finishes at once:
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(3600)
    try:
        await asyncio.sleep(3600)
    finally:
        ended.set()


async def _never_ends(released: asyncio.Event) -> None:
    """Swallows every cancellation until released (the test's own clean-up)."""
    while not released.is_set():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            continue


async def test_a_task_that_loses_a_cancellation_is_cancelled_again() -> None:
    ended = asyncio.Event()
    task = asyncio.create_task(_loses_one_cancellation(ended))
    await asyncio.sleep(0)
    assert await cancel_and_wait([task], "test jobs")
    assert ended.is_set() and task.cancelled()


async def test_a_task_that_will_not_end_is_named_and_the_stop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    released = asyncio.Event()
    stubborn = asyncio.create_task(_never_ends(released), name="stubborn job")
    quick = asyncio.create_task(asyncio.sleep(3600), name="quick job")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="core.tasks"):
        assert not await cancel_and_wait([stubborn, quick], "test jobs", patience=0.2)
    assert quick.cancelled() and not stubborn.done()
    assert "test jobs: 1 task(s) still running" in caplog.text
    assert "stubborn job" in caplog.text and "_never_ends" in caplog.text
    assert "quick job" not in caplog.text
    released.set()
    stubborn.cancel()
    await asyncio.wait([stubborn])


async def test_a_failed_task_is_taken_without_a_never_retrieved_warning() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    assert await cancel_and_wait([task], "test jobs")
    assert task.done() and not task.cancelled()

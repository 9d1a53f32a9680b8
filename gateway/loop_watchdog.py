"""Notices when the event loop stops turning, and says where it was.

One asyncio loop serves HTTP, SMTP and IMAP: a callback that runs long (CPU work
on a large input, a blocking call) stalls every client of the process at once.
The loop sets a heartbeat every `BEAT_SECONDS`; a daemon thread looks at it as
often. When the beat is late by more than `STALL_SECONDS` (250 ms), the thread
logs a WARNING with the loop thread's stack at that moment (`sys._current_frames`:
the code that holds the loop) and counts the stall in `agentmail_loop_stalls_total`;
when the loop beats again, the stall's length goes to
`agentmail_loop_stall_seconds` and is logged too. A loop that never comes back is
still counted and logged once.

A beat late because the whole process waited for a CPU (a busy machine), not
because the loop held it, is no stall: the time the loop thread spent waiting on
the kernel's run queue meanwhile (`/proc/self/task/<tid>/schedstat`, its second
field) is taken off the lateness. So is the time the interpreter spent in garbage
collection (`gc.callbacks`): a collection holds the loop as long as the whole heap
takes to walk, which says nothing of the code the loop was running (a big heap is
seen in `python_gc_*` and the process's memory). The thread wakes 20 times a second
and reads that small file: no measurable CPU.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
import traceback
from pathlib import Path

from core.metrics import LOOP_STALL_SECONDS, LOOP_STALLS

__all__ = ["BEAT_SECONDS", "STALL_SECONDS", "LoopWatchdog"]

log = logging.getLogger("agentmail.loop")

STALL_SECONDS = 0.25
BEAT_SECONDS = 0.05


def _run_queue_seconds(path: Path | None) -> float:
    """How long the thread has waited for a CPU since it started (0 if unknown)."""
    if path is None:
        return 0.0
    try:
        return int(path.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


class LoopWatchdog:
    """Started and stopped on the loop it watches (gateway/server.py does, for every
    gateway process)."""

    def __init__(self, *, stall_seconds: float = STALL_SECONDS, beat: float = BEAT_SECONDS) -> None:
        self.stall_seconds = stall_seconds
        self.beat = beat
        self._last = time.monotonic()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | asyncio.Handle | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._loop_ident = 0
        self._schedstat: Path | None = None
        self._collecting_since: float | None = None
        self._collected = 0.0  # seconds spent in garbage collection since start

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_ident = threading.get_ident()
        schedstat = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")
        self._schedstat = schedstat if schedstat.exists() else None
        self._last = time.monotonic()
        self._handle = self._loop.call_later(self.beat, self._tick)
        self._thread = threading.Thread(target=self._watch, name="loop-watchdog", daemon=True)
        gc.callbacks.append(self._collection)
        self._thread.start()

    def stop(self) -> None:
        if self._collection in gc.callbacks:
            gc.callbacks.remove(self._collection)
        self._stopping.set()
        if self._handle is not None:
            self._handle.cancel()
        if self._thread is not None:
            self._thread.join()

    def _collection(self, phase: str, info: dict[str, int]) -> None:
        """gc's callback, at the start and the stop of every collection."""
        if phase == "start":
            self._collecting_since = time.monotonic()
        elif self._collecting_since is not None:
            self._collected += time.monotonic() - self._collecting_since
            self._collecting_since = None

    def _not_the_loops(self) -> float:
        """Seconds the loop thread waited for a CPU, and the interpreter spent collecting
        garbage, since the thread started: lateness that no code on the loop caused."""
        since = self._collecting_since  # a collection under way counts up to now
        ongoing = 0.0 if since is None else time.monotonic() - since
        return _run_queue_seconds(self._schedstat) + self._collected + ongoing

    def _tick(self) -> None:
        self._last = time.monotonic()
        assert self._loop is not None
        self._handle = self._loop.call_later(self.beat, self._tick)

    def _watch(self) -> None:
        waited = self._not_the_loops()  # at the last beat seen on time
        stalled_at: float | None = None  # the late beat of the stall being counted
        while not self._stopping.wait(self.beat):
            last = self._last
            late = time.monotonic() - last - self.beat
            if stalled_at is not None:
                if last != stalled_at:  # the loop beat again: the stall is over
                    self._ended(last - stalled_at - self.beat)
                    stalled_at = None
                continue
            if late <= self.stall_seconds:
                waited = self._not_the_loops()
                continue
            starved = self._not_the_loops() - waited
            if late - starved > self.stall_seconds:
                stalled_at = last
                self._began(late - starved)

    def _began(self, late: float) -> None:
        LOOP_STALLS.inc()
        frame = sys._current_frames().get(self._loop_ident)
        stack = "".join(traceback.format_stack(frame)) if frame is not None else "(no stack)\n"
        log.warning(
            "event loop stalled for %.3f s so far (over %.3f s); the loop thread is at:\n%s",
            late,
            self.stall_seconds,
            stack.rstrip("\n"),
        )

    def _ended(self, seconds: float) -> None:
        LOOP_STALL_SECONDS.observe(seconds)
        log.warning("event loop stall ended after %.3f s", seconds)

"""One `pi --mode rpc` child process: JSON commands in, responses and events out.

pi's RPC protocol (its docs/rpc.md) is strict JSONL: one JSON object per line, LF
the only delimiter (a JSON string may hold U+2028, which generic line readers split
on; asyncio's `readline` splits on LF alone). A reader task drains stdout at all
times, also while the turn is parked for a human, so pi never blocks on a full pipe:
responses (they carry our `id`) resolve the command that waits for them, everything
else (events, extension UI requests) goes to a queue that the turn reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from bridges.runtime.process_tree import kill_tree

Message = dict[str, Any]
_log = logging.getLogger("agentmail.bridge.pi")
_LINE_LIMIT = 64 * 1024 * 1024  # agent_end repeats the whole turn: long turns make long lines


class PiEnded(Exception):
    """pi's stdout closed: it exited, crashed or was killed."""


class PiProcess:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid
        self._events: asyncio.Queue[Message | None] = asyncio.Queue()
        self._waiting: dict[str, asyncio.Future[Message]] = {}
        self._ids = itertools.count(1)
        self._ended = False
        self._reader = asyncio.create_task(self._read(), name=f"pi {self.pid} stdout")

    @classmethod
    async def spawn(cls, argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> PiProcess:
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=dict(env),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=_LINE_LIMIT,
                start_new_session=True,  # a signal to the bridge's group is not one to pi
            )
        except OSError as error:  # no such binary, no such workspace
            raise PiEnded(f"pi could not be started ({argv[0]} in {cwd}): {error}") from error
        _log.info("pi started (pid %d) in %s", process.pid, cwd)
        return cls(process)

    @property
    def running(self) -> bool:
        return not self._ended and self.process.returncode is None

    async def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                try:
                    message = json.loads(line)
                except json.JSONDecodeError:
                    _log.warning("pi %d wrote a line that is not JSON: %.200r", self.pid, line)
                    continue
                waiter = self._waiting.pop(str(message.get("id", "")), None)
                if message.get("type") == "response" and waiter is not None:
                    if not waiter.done():
                        waiter.set_result(message)
                else:
                    self._events.put_nowait(message)
        except (ValueError, OSError) as error:  # a line over the limit; a broken pipe
            _log.error("reading pi %d failed: %s", self.pid, error)
        finally:
            self._ended = True
            self._events.put_nowait(None)
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(PiEnded(f"pi {self.pid} ended"))
            self._waiting.clear()

    def send(self, message: Message) -> None:
        """Write one command line; a pi that has ended is not written to."""
        stdin = self.process.stdin
        if stdin is None or stdin.is_closing() or not self.running:
            return
        stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")

    async def command(self, kind: str, **fields: Any) -> Message:
        """Send a command and wait for its response (pi answers every command once)."""
        if not self.running:
            raise PiEnded(f"pi {self.pid} ended")
        request_id = f"agentmail-{next(self._ids)}"
        waiter: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        self.send({"id": request_id, "type": kind, **fields})
        return await waiter

    def answer(self, request_id: str, **fields: Any) -> None:
        """Answer an extension UI dialog (`value`, `confirmed` or `cancelled`)."""
        self.send({"type": "extension_ui_response", "id": request_id, **fields})

    async def next_event(self) -> Message:
        event = await self._events.get()
        if event is None:
            self._events.put_nowait(None)  # every later call sees the end too
            raise PiEnded(f"pi {self.pid} ended with {await self.process.wait()}")
        return event

    def kill(self) -> None:
        """pi and everything it started, now (the hard timeout; a bridge going down)."""
        if self.process.returncode is None:
            kill_tree(self.pid)

    async def close(self, grace: float = 5.0) -> None:
        """End pi the polite way (stdin EOF makes it shut down), the hard way after `grace`."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            async with asyncio.timeout(grace):
                await self.process.wait()
        except TimeoutError:
            _log.warning("pi %d did not end within %gs: killed", self.pid, grace)
            self.kill()
            await self.process.wait()
        await self._drained()

    async def stop(self) -> None:
        """Kill and reap (the hard timeout: nothing of the turn may keep running)."""
        self.kill()
        await self.process.wait()
        await self._drained()

    async def _drained(self) -> None:
        """The reader's end, once pi has exited: stdout closes with it, unless something
        pi started still holds it (then the reader is not waited for)."""
        try:
            async with asyncio.timeout(2.0):
                await asyncio.shield(self._reader)
        except TimeoutError:
            self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

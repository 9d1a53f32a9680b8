"""The stub platform: a scripted turn in a child process (`bridges/runtime/stub_worker.py`).

It stands in for a real platform in the runtime's own tests: the work happens in
another process, so killing it, timing it out or restarting the bridge around it
behaves as with a real one. The script is the mail's body, which the worker reads
through the gateway's API (as a model would with `read_mail`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from dataclasses import asdict

from bridges.runtime.platform import Ask, Final, PlatformContext, Question, Turn, TurnResult


class StubPlatform:
    name = "stub"

    def __init__(self, base_url: str, key: str) -> None:
        self._env = {**os.environ, "AGENTMAIL_URL": base_url, "AGENTMAIL_AGENT_KEY": key}

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def run_turn(self, turn: Turn) -> TurnResult:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bridges.runtime.stub_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=turn.cwd,
            env=self._env,
        )
        try:
            out, _ = await process.communicate(json.dumps(asdict(turn)).encode())
        except asyncio.CancelledError:
            # The hard timeout: the worker's exit is its release (seeds 003).
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise
        for line in out.decode().splitlines():
            message = json.loads(line)
            if message["type"] == "ask":
                return Ask(message["request_id"], message["action"], message["question"])
            if message["type"] == "question":
                return Question(message["request_id"], message["text"], message["options"])
            if message["type"] == "final":
                return Final(message["body"])
        raise RuntimeError(f"the stub worker ended with {process.returncode} and no answer")


def create(context: PlatformContext) -> StubPlatform:
    return StubPlatform(context.url, context.key)

"""The hard timeout on the real pi: a turn stuck in a tool is killed, with pi and
every process pi started (its bash tool runs commands detached, in their own
session, out of reach of a signal to pi's process group), and reported by mail.

Its own bridge, with a short AGENTMAIL_BRIDGE_TURN_TIMEOUT, so the other pi tests
keep the default; in a file of its own so `make platforms` runs it beside them.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from bridges.runtime.process_tree import descendants
from tests.support.fake_model import call, say, steps
from tests.support.pi_world import pi_world
from tests.support.processes import children, running, with_cmdline

TIMEOUT = 15  # seconds: pi's start, one model request and the tool's start fit well within


async def _started(marker: str) -> int:
    """The pid of the shell pi's bash tool runs the command in (a few files a poll)."""
    async with asyncio.timeout(TIMEOUT):
        while not (pids := with_cmdline(marker)):
            await asyncio.sleep(0.05)
    return pids[0]


async def test_a_stuck_turn_is_killed_at_the_timeout_and_reported(tmp_path: Path) -> None:
    marker = f"stuck-{uuid.uuid4().hex[:8]}"
    # `; echo`: the shell stays (no exec of sleep), so the marker names a live process.
    script = steps(call("bash", command=f"sleep 300; echo {marker}"), say("never"))
    async with pi_world(
        tmp_path,
        script,
        AGENTMAIL_BRIDGE_TURN_TIMEOUT=str(TIMEOUT),
        AGENTMAIL_PI_GATED_TOOLS="",  # nothing to approve: the tool runs at once
    ) as world:
        sent = await world.task("stuck")
        shell = await _started(marker)
        assert world.bridge.process is not None
        # The turn's pi is the bridge's child above the shell (the other is the spare).
        turn_pi = next(
            child for child in children(world.bridge.process.pid) if shell in descendants(child)
        )
        tree = [turn_pi, *descendants(turn_pi)]  # pi, its shell, the sleep
        assert len(tree) >= 3, tree

        final = await world.mail.reply(sent["session_id"], "turn_failed", timeout=TIMEOUT + 30)
        body = (await world.mail.read(final["mail_id"]))["body"]
        assert f"ran longer than {TIMEOUT} s" in body
        assert [pid for pid in tree if running(pid)] == []
        assert world.model.log[-1].reply is not None  # pi had asked the model, and was answered

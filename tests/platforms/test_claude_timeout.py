"""The hard timeout on Claude Code: a turn stuck in a command the human allowed is
stopped — Claude Code and the command it runs — and reported by mail.

Its own bridge, with a short AGENTMAIL_BRIDGE_TURN_TIMEOUT, so the other Claude Code
tests keep the default; in a file of its own so `make platforms` runs it beside them.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from bridges.runtime.process_tree import descendants
from tests.support.claude_desk import claude_desk, script
from tests.support.fake_model import call, say
from tests.support.processes import children, ended, running, with_cmdline

TIMEOUT = 15  # seconds from the approval: the command's start fits well within


async def test_a_stuck_turn_is_stopped_with_its_command_and_reported(tmp_path: Path) -> None:
    marker = f"stuck-{uuid.uuid4().hex[:8]}"
    # `; echo`: the shell stays (it cannot exec tail), so the marker names a live process.
    command = f"tail -f /dev/null; echo {marker}"
    async with claude_desk(tmp_path, AGENTMAIL_BRIDGE_TURN_TIMEOUT=str(TIMEOUT)) as desk:
        desk.model.script = script(call("Bash", command=command), say("never"))
        task = await desk.task("Wait forever")
        asked = await desk.next_mail(task["session_id"], "permission_request")
        await desk.decide(asked["mail_id"], "approve")  # the turn's clock starts again
        async with asyncio.timeout(TIMEOUT):
            # The shell, and the `tail` it forks a moment after it starts.
            while not (shells := with_cmdline(marker)) or not children(shells[0]):
                await asyncio.sleep(0.05)
        assert desk.bridge.process is not None
        [cli] = children(desk.bridge.process.pid)  # Claude Code, above the shell
        tree = [cli, *descendants(cli)]
        assert set(shells) <= set(tree) and len(tree) >= 3, tree  # the CLI, shell, tail

        final = await desk.next_mail(task["session_id"], "turn_failed", timeout=TIMEOUT + 45)
        assert f"ran longer than {TIMEOUT} s" in final["body"]
        for pid in tree:
            await ended(pid)
        assert [pid for pid in tree if running(pid)] == []

"""The kill matrix on the stub platform: a real bridge process, a real gateway, SIGKILL
at each point of a turn, then a restart on the same data dir (docs/bridges.md, "What
survives a restart"). For every cell: the command ran at most once (its marker file
has at most one line), the human got exactly one final summary or exactly one
`turn_failed` mail, and nothing the killed bridge started is left running.

One gateway (SQLite) serves the module; each test has its own agent, workspace and
data dir. The storage side of `turn_failed` is tested on both databases in
test_auto_rule.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.bridge import appears
from tests.support.processes import ended
from tests.support.stub_cells import (  # noqa: F401  (fixtures)
    Cell,
    cell_fixture,
    cut_while_approved_command_runs,
    gone,
    human_fixture,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
INTERRUPTED = "(this turn was run again after an interruption)"
COUNT = "echo ran >> ran.txt"  # the command whose runs the tests count


def _type(mails: list[dict[str, Any]]) -> list[str]:
    return [m["mail_type"] for m in mails]


async def _killed_after(cell: Cell, marker: str) -> int:
    """Start a bridge, wait for the worker's marker file, SIGKILL the bridge; the
    worker's pid (it goes on running: nothing tells it its bridge died)."""
    bridge = cell.bridges[-1]
    worker = int(await appears(cell.file(marker)))
    await bridge.kill()
    cell.file(marker).unlink()
    return worker


WAIT_THEN_COUNT = [
    {"do": "mark", "file": "started"},
    {"do": "wait_file", "file": "go"},
    {"do": "run", "command": COUNT},
    {"do": "reply", "body": "done"},
]


async def test_a_killed_before_the_model_read_the_task(cell: Cell) -> None:
    """(a) The turn started, the task not read yet: run again once, with the note."""
    await cell.bridge()
    await cell.task(WAIT_THEN_COUNT)
    worker = await _killed_after(cell, "started")
    await cell.bridge()
    await ended(worker)  # ended by the restart, before it could go on
    assert int(await appears(cell.file("started"))) != worker
    cell.file("go").touch()
    final = await cell.mail("final_summary")
    assert final["body"] == f"done {INTERRUPTED}"
    assert cell.runs() == 1
    assert _type(await cell.answers()) == ["final_summary"]


async def test_b_killed_after_read_mail(cell: Cell) -> None:
    """(b) The model read its task (the mail is read now): the ledger, not the read
    state, says it was not finished; it runs again once, with the note."""
    await cell.bridge()
    await cell.task([{"do": "read_mail"}, *WAIT_THEN_COUNT])
    worker = await _killed_after(cell, "started")
    await cell.bridge()
    await ended(worker)
    await appears(cell.file("started"))
    cell.file("go").touch()
    final = await cell.mail("final_summary")
    assert final["body"] == f"done {INTERRUPTED}"
    assert cell.runs() == 1
    assert _type(await cell.answers()) == ["final_summary"]


async def test_b_twice_the_human_is_told_by_a_turn_failed_mail(cell: Cell) -> None:
    """Cut again in its re-run: not run a third time; one `turn_failed` mail says so."""
    await cell.bridge()
    await cell.task([{"do": "read_mail"}, *WAIT_THEN_COUNT])
    first = await _killed_after(cell, "started")
    await cell.bridge()
    second = await _killed_after(cell, "started")
    await cell.bridge()
    failed = await cell.mail("turn_failed")
    assert "interrupted 2 times" in failed["body"] and failed["auto"] is True
    await ended(first)
    await ended(second)
    assert not cell.file("started").exists()  # no third run
    assert cell.runs() == 0
    assert _type(await cell.answers()) == ["turn_failed"]


ASK_AND_RUN = [
    {"do": "read_mail"},
    {"do": "ask", "action": COUNT},
    {"do": "run", "command": COUNT},
    {"do": "reply", "body": "done"},
]


async def test_c_killed_while_a_permission_is_pending(cell: Cell) -> None:
    """(c) The request stays open across the restart; its decision resumes the turn."""
    bridge = await cell.bridge()
    await cell.task(ASK_AND_RUN)
    asked = await cell.mail("permission_request")
    await cell.recorded(asked["mail_id"])
    await bridge.kill()
    await cell.bridge()
    await cell.decide(asked["mail_id"], "approve")
    final = await cell.mail("final_summary")
    assert final["body"] == "done"  # resumed where it stopped, not run again
    assert cell.runs() == 1
    assert _type(await cell.answers()) == ["permission_request", "final_summary"]


async def test_d_killed_while_an_approved_command_runs(cell: Cell) -> None:
    """(d) An approved command is running, detached (as pi runs it), when the bridge
    and its worker die: the command is ended at the restart, the turn runs again and
    the human is asked again, told that the approved command was interrupted."""
    _, again = await cut_while_approved_command_runs(cell)
    await cell.decide(again["mail_id"], "reject")
    final = await cell.mail("final_summary")
    assert final["body"].startswith(f"done {INTERRUPTED}")
    assert cell.runs() == 1
    assert _type(await cell.answers()) == [
        "permission_request",
        "permission_request",
        "final_summary",
    ]


@pytest.mark.parametrize("record", ["kept", "lost"])
async def test_e_killed_after_the_final_summary(cell: Cell, record: str) -> None:
    """(e) Answered: nothing runs again. `lost`: killed between sending the summary and
    recording it; the gateway has the answer, so the turn is not run again either."""
    bridge = await cell.bridge()
    steps = [{"do": "read_mail"}, {"do": "run", "command": COUNT}, {"do": "reply", "body": "one"}]
    task = await cell.task(steps, session_alias=cell.name)
    await cell.mail("final_summary")
    await cell.completed(task["mail_id"])
    await bridge.kill()
    if record == "lost":
        cell.lose_completions()
    await cell.bridge()
    # The conversation's next mail runs after anything the restart had queued in it.
    await cell.task([{"do": "reply", "body": "two"}], to=f"root.{cell.name}")
    await cell.mail("final_summary")
    assert cell.runs() == 1
    assert [m["body_preview"] for m in await cell.answers()] == ["one", "two"]
    assert cell.file("activity.log").read_text().count(" start ") == 2


async def test_a_turn_the_platform_fails_is_reported_as_turn_failed(cell: Cell) -> None:
    """Not a kill: the platform ends the turn with no answer (the stub's worker exits).
    The sender gets one `turn_failed` mail at once, not silence until a restart."""
    await cell.bridge()
    await cell.task([{"do": "read_mail"}, {"do": "crash"}])
    failed = await cell.mail("turn_failed")
    assert "failed in the platform" in failed["body"] and failed["auto"] is True
    assert _type(await cell.answers()) == ["turn_failed"]

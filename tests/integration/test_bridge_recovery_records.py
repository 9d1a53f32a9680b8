"""Recovery when the bridge's own records fall short — an answer behind many other
replies, a permission record lost: the gateway's copy decides
(bridges/runtime/recovery.py). The stub platform, a real bridge process, SIGKILL and a
restart on the same data dir, as in test_bridge_recovery.py."""

from __future__ import annotations

import pytest

from tests.support.http import HUMAN_SEND, ok
from tests.support.stub_cells import (  # noqa: F401  (fixtures)
    Cell,
    cell_fixture,
    cut_while_approved_command_runs,
    human_fixture,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
COUNT = "echo ran >> ran.txt"
FORWARDS = 110  # more mails under the task than one chunk of its replies (recovery.py)


async def test_an_answer_behind_many_other_replies_is_found(cell: Cell) -> None:
    """Killed after the final summary, its record lost, in a thread where the human
    forwarded the task many times before the answer came: the answer is found past the
    first chunk of the task's replies, and the task does not run again."""
    bridge = await cell.bridge()
    steps = [
        {"do": "read_mail"},
        {"do": "wait_file", "file": "go"},
        {"do": "run", "command": COUNT},
        {"do": "reply", "body": "one"},
    ]
    task = await cell.task(steps, session_alias=cell.name)
    await cell.human.api.human("bob")
    forward = {"to": "bob@.new", "subject": "Fwd: task", "reply_to": task["mail_id"]}
    for n in range(FORWARDS):
        ok(await cell.human.client.post(HUMAN_SEND, json={**forward, "body": f"fyi {n}"}))
    cell.file("go").touch()
    await cell.mail("final_summary")
    await cell.completed(task["mail_id"])
    await bridge.kill()
    cell.lose_completions()
    await cell.bridge()
    await cell.task([{"do": "reply", "body": "two"}], to=f"root.{cell.name}")
    await cell.mail("final_summary")
    assert cell.runs() == 1
    assert [m["body_preview"] for m in await cell.answers()] == ["one", "two"]
    assert cell.file("activity.log").read_text().count(" start ") == 2


async def test_an_approval_the_records_lost_is_asked_again(cell: Cell) -> None:
    """Killed while an approved command runs (cell (d)), and permissions.jsonl is lost
    with the bridge: the re-run's request, under its first key, comes back approved
    from the gateway; that approval is not taken again — the human is asked anew,
    told the approved run was interrupted. Rejected, the command ran once."""
    _, again = await cut_while_approved_command_runs(cell, lose_records=True)
    await cell.decide(again["mail_id"], "reject")
    await cell.mail("final_summary")
    assert cell.runs() == 1
    kinds = [m["mail_type"] for m in await cell.answers()]
    assert kinds == ["permission_request", "permission_request", "final_summary"]

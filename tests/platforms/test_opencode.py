"""opencode bridged to a real gateway (`agentmail bridge opencode` driving `opencode serve`),
thinking with the scripted fake model as an OpenAI-compatible provider: permissions
approved, rejected and always allowed, the question tool, the session kept per
conversation, naming both ways, and restarts: the bridge SIGKILLed in the middle of
a turn, after one, while a permission is open, and the kill matrix's cells (b) after
`read_mail` and (d) while an approved command runs (docs/bridges.md#opencode).

One gateway, fake model and bridge serve the file (tests/support/opencode_desk.py);
the restart tests leave the bridge running again for the tests after them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bridges.runtime.process_tree import descendants
from bridges.runtime.prompt import INTERRUPTED_NOTE
from tests.support import processes
from tests.support.bridge import held
from tests.support.desk import mail_id_in
from tests.support.fake_model import Exchange, Reply, call, say
from tests.support.http import HUMAN_SEND, ok
from tests.support.opencode_desk import Desk, opencode_desk, script

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def desk(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Desk]:
    async with opencode_desk(tmp_path_factory.mktemp("opencode")) as desk:
        yield desk


async def test_approved_command_runs_and_the_next_mail_continues_the_session(desk: Desk) -> None:
    desk.model.script = script(
        lambda exchange: call("read_mail", mail_id=mail_id_in(exchange)),
        call("bash", command="touch approved.txt", description="Create approved.txt"),
        lambda exchange: say(f"Done: {exchange.results[-1].text}"),
    )
    task = await desk.task("Make approved.txt", "Create the file approved.txt, please.")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    assert asked["action"] == "touch approved.txt" and asked["expires_at"]
    assert asked["options"] == ["approve", "always allow", "reject"]
    assert "touch approved.txt" in asked["body"]
    assert not desk.file("approved.txt").exists()
    await desk.decide(asked["mail_id"], "approve")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("approved.txt").exists()
    assert final["auto"] is True and final["parent_mail_id"] == task["mail_id"]
    assert final["body"] == "Done: (no output)"
    first, second = [e for e in desk.model.exchanges(task["mail_id"]) if e.tools][:2]
    assert "agentmail_read_mail" in first.tools  # the mail tools, over MCP, from the catalog
    assert "Create the file approved.txt" in second.results[-1].text  # read through the gateway

    desk.model.script = script(say("It is still there."))
    alias = await desk.alias(task["session_id"])
    again = await desk.task("Still there?", to=f"builder@root.{alias}")
    assert again["session_id"] == task["session_id"]
    await desk.next_mail(task["session_id"], "final_summary")
    [resumed] = [e for e in desk.model.exchanges(again["mail_id"]) if e.tools]
    history = [c.arguments.get("command") for m in resumed.messages for c in m.tool_calls]
    assert "touch approved.txt" in history  # the same opencode session, with its history


async def test_a_rejection_leaves_the_file_absent_and_tells_the_model(desk: Desk) -> None:
    desk.model.script = script(
        call("bash", command="touch rejected.txt", description="Create rejected.txt"),
        lambda exchange: say(f"Not done: {exchange.results[-1].text}"),
    )
    task = await desk.task("Make rejected.txt")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "reject", "not in this folder")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert not desk.file("rejected.txt").exists()
    told = desk.model.exchanges(task["mail_id"])[-1].results[-1].text
    assert "rejected" in told and "not in this folder" in told
    assert "not in this folder" in final["body"]


async def test_always_allow_is_kept_and_not_asked_again(desk: Desk) -> None:
    command = "echo once >> always.txt"
    desk.model.script = script(call("bash", command=command), say("Appended."))
    task = await desk.task("Append to always.txt")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "always allow")
    await desk.next_mail(task["session_id"], "final_summary")
    alias = await desk.alias(task["session_id"])
    await desk.task("Once more", to=f"builder@root.{alias}")
    await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("always.txt").read_text() == "once\nonce\n"
    assert len(await desk.mails(task["session_id"], "permission_request")) == 1


async def test_the_question_tool_goes_out_by_mail_and_the_reply_is_the_answer(
    desk: Desk,
) -> None:
    question = {
        "question": "Which colour should the banner be?",
        "header": "Colour",
        "options": [
            {"label": "red", "description": "warm"},
            {"label": "blue", "description": "calm"},
        ],
    }
    desk.model.script = script(
        call("question", questions=[question]),
        lambda exchange: say(f"Noted: {exchange.results[-1].text}"),
    )
    task = await desk.task("Paint the banner")
    asked = await desk.next_mail(task["session_id"], "question")
    assert asked["body"].startswith("Which colour should the banner be?")
    assert "1. red" in asked["body"] and "2. blue" in asked["body"]
    reply = {"to": asked["from"], "subject": "Re: colour", "body": "2"}
    ok(await desk.human.post(HUMAN_SEND, json={**reply, "reply_to": asked["mail_id"]}))
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert '"Which colour should the banner be?"="blue"' in final["body"]


async def test_the_title_names_the_conversation_and_the_settled_alias_titles_the_session(
    desk: Desk,
) -> None:
    desk.model.script = script(say("Report written."), title="Weekly report")
    first = await desk.task("Write the report")
    await desk.next_mail(first["session_id"], "final_summary")
    second = await desk.task("Write the other report")
    await desk.next_mail(second["session_id"], "final_summary")
    assert await desk.alias(first["session_id"]) == "weekly-report"
    assert await desk.alias(second["session_id"]) == "weekly-report-2"  # taken: settled
    titled = [
        (await desk.opencode(f"/session/{desk.opencode_session(s['session_id'])}"))["title"]
        for s in (first, second)
    ]
    assert titled == ["Weekly report", "weekly-report-2"]


def _gone(pid: int) -> bool:
    """Dead, or a zombie waiting for init to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except (FileNotFoundError, IndexError):
        return True


async def _killed(desk: Desk) -> None:
    """SIGKILL the bridge, as when its host dies; opencode dies with it (its pdeathsig)."""
    _, opencode = desk.serving()
    await desk.bridge.kill()
    async with asyncio.timeout(10):
        while not _gone(opencode):
            await asyncio.sleep(0.02)


def _ledger(desk: Desk, mail_id: str) -> list[str]:
    lines = (desk.data / "ledger.jsonl").read_text().splitlines()
    return [json.loads(line)["state"] for line in lines if mail_id in line]


async def test_a_bridge_killed_with_turns_in_every_state_goes_on_right_after_restart(
    desk: Desk,
) -> None:
    """One SIGKILL of the bridge (opencode dies with it) while one mail is completed, one
    waits for a permission and one is in the middle of a model call."""
    held = asyncio.Event()

    async def work(exchange: Exchange) -> Reply:
        if "A quick one" in exchange.task:
            return say("Quick.")
        if INTERRUPTED_NOTE in exchange.task:
            return say("Finished after the restart.")
        await held.wait()  # the first run's model call is in flight when the bridge dies
        return say("Too late: nobody listens.")

    permission = script(call("bash", command="echo ran >> effects.txt"), say("Appended."))
    desk.model.script = lambda e: (permission if "effects.txt" in e.task else script(work))(e)
    quick = await desk.task("A quick one")
    await desk.next_mail(quick["session_id"], "final_summary")
    waiting = await desk.task("Append to effects.txt")
    asked = await desk.next_mail(waiting["session_id"], "permission_request")
    long = await desk.task("A long job")
    await desk.model.wait_for(lambda: any(e.tools for e in desk.model.exchanges(long["mail_id"])))
    quick_calls = len(desk.model.exchanges(quick["mail_id"]))

    try:
        await _killed(desk)
    finally:
        held.set()  # else the fake model's held answer keeps it from stopping
    await desk.decide(asked["mail_id"], "approve", "go ahead")  # while the bridge is down
    await desk.bridge.start()

    # In the middle of a turn: run again once, with the note; one final reply.
    final = await desk.next_mail(long["session_id"], "final_summary")
    assert final["body"] == "Finished after the restart."
    runs = [e for e in desk.model.exchanges(long["mail_id"]) if e.tools]
    assert [INTERRUPTED_NOTE in e.task for e in runs] == [False, True]
    assert len(await desk.mails(long["session_id"], "final_summary")) == 1

    # A permission open, decided while down: opencode forgot it; the command ran once.
    final = await desk.next_mail(waiting["session_id"], "final_summary")
    assert final["body"] == "Appended."
    assert desk.file("effects.txt").read_text() == "ran\n"  # asked again, answered by the bridge
    rerun = {e.task for e in desk.model.exchanges(waiting["mail_id"]) if "was approved" in e.task}
    assert len(rerun) == 1 and "go ahead" in (told := rerun.pop()) and "echo ran" in told
    assert len(await desk.mails(waiting["session_id"], "permission_request")) == 1

    # Completed before the kill: decided on at start (before `ready`), not run again.
    assert _ledger(desk, quick["mail_id"]) == ["delivered", "completed"]
    assert len(desk.model.exchanges(quick["mail_id"])) == quick_calls
    assert len(await desk.mails(quick["session_id"], "final_summary")) == 1


async def test_opencode_killed_alone_mid_turn_is_started_again_and_the_turn_goes_on(
    desk: Desk,
) -> None:
    held = asyncio.Event()

    async def work(exchange: Exchange) -> Reply:
        if INTERRUPTED_NOTE in exchange.task:
            return say("Done after opencode came back.")
        await held.wait()
        return say("Too late: nobody listens.")

    desk.model.script = script(work)
    task = await desk.task("Survive opencode")
    await desk.model.wait_for(lambda: any(e.tools for e in desk.model.exchanges(task["mail_id"])))
    _, opencode = desk.serving()
    try:
        os.kill(opencode, signal.SIGKILL)  # the bridge lives on
    finally:
        held.set()
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert final["body"] == "Done after opencode came back."
    assert desk.serving()[1] != opencode
    assert len(await desk.mails(task["session_id"], "final_summary")) == 1


def _started_by_bridge(desk: Desk) -> list[int]:
    """Every process below the running bridge: opencode serve, its tools, its MCP servers."""
    assert desk.bridge.process is not None
    return descendants(desk.bridge.process.pid)


async def test_b_a_turn_cut_after_read_mail_runs_again_once(desk: Desk) -> None:
    """Kill cell (b): the model has read its task (read_mail marked it read) when the
    bridge dies. The ledger, not the read state, runs it again once, with the note."""
    read, release = asyncio.Event(), asyncio.Event()

    async def work(exchange: Exchange) -> Reply:
        if INTERRUPTED_NOTE in exchange.task:
            return say("Second run.")
        if exchange.step == 0:
            return call("read_mail", mail_id=mail_id_in(exchange))
        read.set()
        await held(release)  # never answered: the bridge dies first
        return say("Too late: nobody listens.")

    desk.model.script = script(work)
    task = await desk.task("Cut after reading")
    await held(read)
    assert read.is_set()
    started = _started_by_bridge(desk)
    try:
        await _killed(desk)
    finally:
        release.set()
    await desk.bridge.start()

    final = await desk.next_mail(task["session_id"], "final_summary")
    assert final["body"] == "Second run."
    runs = [e for e in desk.model.exchanges(task["mail_id"]) if e.tools and e.step == 0]
    assert [INTERRUPTED_NOTE in e.task for e in runs] == [False, True]
    assert not [pid for pid in started if processes.running(pid)]
    assert len(await desk.mails(task["session_id"], "final_summary")) == 1
    assert not await desk.mails(task["session_id"], "turn_failed")


async def test_d_an_approved_command_cut_mid_run_is_asked_again(desk: Desk) -> None:
    """Kill cell (d): an approved command runs when the bridge dies (opencode dies with
    it; the command would live on, reparented). The restart ends the command; the turn
    runs again and asks again for the same command, saying the approved run was
    interrupted; approved, it runs again (to its end this time), one final reply comes."""
    command = "echo $$ >> cut-command.txt; [ -e go-on ] || exec sleep 600"

    def work(exchange: Exchange) -> Reply:
        if exchange.step == 0:
            return call("read_mail", mail_id=mail_id_in(exchange))
        if exchange.step == 1:
            return call("bash", command=command, description="Cut it")
        return say(f"The command said: {exchange.results[-1].text}")

    desk.model.script = script(work)
    task = await desk.task("Cut the command")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "approve")
    ran = desk.file("cut-command.txt")
    async with asyncio.timeout(30):
        while not (ran.exists() and ran.read_text().endswith("\n")):
            await asyncio.sleep(0.02)
    pid = int(ran.read_text())
    started = _started_by_bridge(desk)
    assert pid in started
    await _killed(desk)
    await desk.bridge.start()
    await processes.ended(pid)  # ended by the restart, if opencode's death did not end it
    assert not [pid for pid in started if processes.running(pid)]

    asked_again = await desk.next_mail(task["session_id"], "permission_request")
    assert asked_again["action"] == command
    assert "interrupted while the approved command ran" in asked_again["body"]
    desk.file("go-on").touch()  # the second run ends at once
    await desk.decide(asked_again["mail_id"], "approve")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert final["body"] == "The command said: (no output)"
    assert ran.read_text().splitlines()[0] == str(pid)
    assert len(ran.read_text().splitlines()) == 2  # the cut run, then the approved re-run
    runs = [e for e in desk.model.exchanges(task["mail_id"]) if e.tools and e.step == 0]
    assert [INTERRUPTED_NOTE in e.task for e in runs] == [False, True]
    assert len(await desk.mails(task["session_id"], "permission_request")) == 2
    assert len(await desk.mails(task["session_id"], "final_summary")) == 1

"""Claude Code bridged to a real gateway (`agentmail bridge claude`, claude-agent-sdk with
its bundled CLI), thinking with the scripted fake model on its Anthropic Messages side.

One gateway (SQLite), one fake model and one bridge serve the whole file; each test works
in a conversation of its own (`builder@root.new`) on files of its own, so the tests stay
independent while the platform starts once (docs/bridges.md#claude-code)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from email import message_from_bytes, policy
from pathlib import Path

import pytest
import pytest_asyncio

from bridges.runtime.prompt import INTERRUPTED_NOTE
from tests.support.bridge import appears, held
from tests.support.claude_desk import TITLE_REQUEST, Desk, claude_desk, script
from tests.support.desk import mail_id_in
from tests.support.fake_model import Exchange, Reply, call, say
from tests.support.gateway import PASSWORD
from tests.support.http import HUMAN_SEND, ok
from tests.support.imap import fetched, imap_login
from tests.support.processes import children, ended, running
from tests.support.smtp import D, message, send

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def desk(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Desk]:
    async with claude_desk(tmp_path_factory.mktemp("claude")) as running:
        yield running


def titles_written(config: Path) -> list[str]:
    """The custom titles in Claude Code's transcripts (what `claude --resume` lists)."""
    return [
        json.loads(line)["customTitle"]
        for transcript in config.glob("projects/*/*.jsonl")
        for line in transcript.read_text().splitlines()
        if '"custom-title"' in line
    ]


async def test_approved_then_named_then_the_next_mail_continues_the_session(desk: Desk) -> None:
    desk.model.script = script(
        lambda exchange: call("read_mail", mail_id=mail_id_in(exchange)),
        call("Bash", command="touch approved.txt", description="Create approved.txt"),
        lambda exchange: say(f"Done: {exchange.results[-1].text}"),
        title="approved.txt file",
    )
    task = await desk.task("Make approved.txt", "Create the file approved.txt, please.")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    assert asked["action"] == "touch approved.txt" and asked["expires_at"]
    assert asked["options"] == ["approve", "always allow", "reject"]
    assert asked["subject"] == '[needs decision] #make-approved-txt: run "touch approved.txt"?'
    assert "touch approved.txt" in asked["body"]
    assert not desk.file("approved.txt").exists()
    await desk.decide(asked["mail_id"], "approve", "mind the README")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("approved.txt").exists()
    after = desk.model.exchanges(task["mail_id"])[-1]  # the request after the command ran
    assert after.step == 2 and 'with a note: "mind the README"' in after.everything
    assert final["auto"] is True and final["parent_mail_id"] == task["mail_id"]
    assert final["body"] == "Done: (Bash completed with no output)"
    [first] = desk.model.exchanges(task["mail_id"])[:1]
    assert "Create the file approved.txt" in desk.model.exchanges(task["mail_id"])[1].everything
    assert "mcp__agentmail__read_mail" in first.tools
    assert "mcp__agentmail__request_permission" not in first.tools

    # Claude Code's title became the alias, and the alias its title.
    session = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["session"]
    assert session["session_alias"] == "approved-txt-file"
    assert "approved-txt-file" in titles_written(desk.config)

    # The mails keep the task's subject; the alias the permission request named (a mail
    # client's Reply goes there) still reaches the renamed conversation.
    assert final["subject"] == "Re: Make approved.txt"
    desk.model.script = script(say("It is still there."))
    again = await desk.task("Still there?", to="builder@root.make-approved-txt")
    assert again["session_id"] == task["session_id"]
    assert again["session_alias"] == "approved-txt-file"
    await desk.next_mail(task["session_id"], "final_summary")
    [resumed] = desk.model.exchanges(again["mail_id"])
    history = [c.arguments for m in resumed.messages for c in m.tool_calls]
    assert {"command": "touch approved.txt", "description": "Create approved.txt"} in history


async def test_a_rejection_leaves_the_file_absent_and_tells_the_model(desk: Desk) -> None:
    desk.model.script = script(
        call("Bash", command="touch rejected.txt", description="Create rejected.txt"),
        lambda exchange: say(f"Not done: {exchange.results[-1].text}"),
    )
    task = await desk.task("Make rejected.txt")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "reject", "not in this folder")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert not desk.file("rejected.txt").exists()
    told = desk.model.exchanges(task["mail_id"])[-1].results[-1]
    assert told.is_error and "rejected" in told.text and "not in this folder" in told.text
    assert "not in this folder" in final["body"]


async def test_always_allow_is_kept_and_not_asked_again(desk: Desk) -> None:
    command = "echo once >> always.txt"
    desk.model.script = script(call("Bash", command=command), say("Appended."))
    task = await desk.task("Append to always.txt")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "always allow")
    await desk.next_mail(task["session_id"], "final_summary")
    alias = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["session"][
        "session_alias"
    ]
    await desk.task("Once more", to=f"builder@root.{alias}")
    await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("always.txt").read_text() == "once\nonce\n"
    detail = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))
    assert [m["mail_type"] for m in detail["mails"]].count("permission_request") == 1


async def test_a_question_goes_out_by_mail_and_the_reply_is_the_answer(desk: Desk) -> None:
    ask = {
        "questions": [
            {
                "question": "Which colour should the banner be?",
                "header": "Colour",
                "options": [
                    {"label": "red", "description": "warm"},
                    {"label": "blue", "description": "calm"},
                ],
                "multiSelect": False,
            }
        ]
    }
    desk.model.script = script(
        call("AskUserQuestion", **ask),
        lambda exchange: say(f"Noted: {exchange.results[-1].text}"),
    )
    task = await desk.task("Paint the banner")
    question = await desk.next_mail(task["session_id"], "question")
    assert question["body"].startswith("Which colour should the banner be?")
    assert "1. red" in question["body"] and "2. blue" in question["body"]
    reply = {"to": question["from"], "subject": "Re: colour", "body": "2"}
    ok(await desk.human.post(HUMAN_SEND, json={**reply, "reply_to": question["mail_id"]}))
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert '"Which colour should the banner be?"="blue"' in final["body"]


async def test_the_approval_by_mail_a_reply_of_1_over_smtp(desk: Desk) -> None:
    desk.model.script = script(
        call("Bash", command="touch by-mail.txt", description="Create by-mail.txt"),
        say("Made by-mail.txt."),
    )
    task = await desk.task("Make by-mail.txt")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    async with imap_login(desk.api.gateway, "ana") as imap:
        await imap.ok("select", '"Needs decision"')
        [uid] = await imap.search_uids("HEADER", "Message-ID", asked["message_id"])
        [entry] = fetched(await imap.uid("FETCH", str(uid), "(BODY.PEEK[])")).values()
    request = message_from_bytes(entry["BODY[]"], policy=policy.default)
    text = request.get_body(preferencelist=("plain",))
    assert text is not None and "touch by-mail.txt" in text.get_content()
    reply = message(
        f"ana@{D}",
        str(request["Reply-To"] or request["From"]),
        f"Re: {request['Subject']}",
        "1\n\nSent from my phone",
        In_Reply_To=request["Message-ID"],
        References=request["Message-ID"],
    )
    await send(desk.api, "ana", PASSWORD, reply)
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert final["body"] == "Made by-mail.txt." and desk.file("by-mail.txt").exists()
    decided = ok(await desk.human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert (decided["permission_state"], decided["decision"]) == ("decided", "approve")
    # The gateway delivers the reply as a mail too: it was the decision, not a new task.
    mails = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["mails"]
    [reply] = [m for m in mails if m["parent_mail_id"] == asked["mail_id"]]
    await desk.completed(reply["mail_id"])
    assert not desk.model.exchanges(reply["mail_id"])


async def test_a_decision_taken_while_the_bridge_is_down_resumes_the_session(
    desk: Desk,
) -> None:
    command = "echo ran >> restart.txt"
    desk.model.script = script(
        call("Bash", command=command, description="Note the run"),
        lambda exchange: say(f"Resumed: {exchange.results[-1].text}"),
    )
    task = await desk.task("Note a run")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    assert desk.bridge.process is not None
    clis = children(desk.bridge.process.pid)
    assert clis, "Claude Code's CLI runs under the bridge while it waits for the human"
    await desk.bridge.kill()
    for pid in clis:
        await ended(pid)  # the CLI dies with its bridge: nothing runs while it is down
    await desk.decide(asked["mail_id"], "approve", "go ahead")
    assert not desk.file("restart.txt").exists()
    await desk.bridge.start()
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert desk.file("restart.txt").read_text() == "ran\n"  # once
    assert final["body"].startswith("Resumed:")
    resumed = desk.model.exchanges("The human approved")[0]
    assert "go ahead" in resumed.task
    before = [c.arguments["command"] for m in resumed.messages for c in m.tool_calls]
    assert before == [command], "the resumed session has the cut-off call in its history"
    detail = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))
    assert [m["mail_type"] for m in detail["mails"]].count("final_summary") == 1


async def test_three_conversations_work_at_once(desk: Desk) -> None:
    """Seen from the model's side: three Claude Code sessions wait on it together."""
    waiting: set[str] = set()
    together = asyncio.Event()

    async def answer(exchange: Exchange) -> Reply:
        if TITLE_REQUEST in exchange.system:
            return say(json.dumps({"title": "Together"}))
        waiting.add(mail_id_in(exchange))
        if len(waiting) == 3:
            together.set()
        async with asyncio.timeout(60):
            await together.wait()
        return say("together")

    desk.model.script = answer
    tasks = [await desk.task(f"Part {n}") for n in range(3)]
    for task in tasks:
        await desk.next_mail(task["session_id"], "final_summary")
    firsts = [desk.model.exchanges(task["mail_id"])[0] for task in tasks]
    assert max(e.started for e in firsts) < min(e.finished or 0 for e in firsts)


async def test_killed_mid_turn_the_session_runs_again_once_with_the_note(desk: Desk) -> None:
    asked = asyncio.Event()
    released = asyncio.Event()

    async def answer(exchange: Exchange) -> Reply:
        if TITLE_REQUEST in exchange.system:
            return say(json.dumps({"title": "Interrupted work"}))
        if INTERRUPTED_NOTE in exchange.task:
            return say("after the interruption")
        asked.set()
        await released.wait()  # the host dies while the model thinks
        return say("never read")

    desk.model.script = answer
    try:
        task = await desk.task("Think long")
        async with asyncio.timeout(60):
            await asked.wait()
        assert desk.bridge.process is not None
        clis = children(desk.bridge.process.pid)
        await desk.bridge.kill()
        for pid in clis:  # waiting for the model, Claude Code still ends with its bridge
            await ended(pid)
        await desk.bridge.start()
        final = await desk.next_mail(task["session_id"], "final_summary")
    finally:
        released.set()
    assert final["body"] == "after the interruption"
    [again] = desk.model.exchanges(INTERRUPTED_NOTE)  # one re-run, one request
    notices = [m.text.count(task["mail_id"]) for m in again.messages if m.role == "user"]
    assert sum(notices) == 2, "the session was resumed: the first notice is in its history"
    detail = ok(await desk.human.get(f"/api/v1/me/sessions/{task['session_id']}"))
    assert [m["mail_type"] for m in detail["mails"]].count("final_summary") == 1


async def test_b_a_turn_cut_after_read_mail_runs_again_once(desk: Desk) -> None:
    """Kill cell (b): the model has read its task (read_mail marked it read) when the
    bridge dies. The ledger, not the read state, runs it again once, with the note."""
    read, release = asyncio.Event(), asyncio.Event()

    async def answer(exchange: Exchange) -> Reply:
        if TITLE_REQUEST in exchange.system:
            return say(json.dumps({"title": "Cut after reading"}))
        if INTERRUPTED_NOTE in exchange.task:
            return say("second run")
        if exchange.step == 0:
            return call("read_mail", mail_id=mail_id_in(exchange))
        read.set()
        await held(release)  # never answered: the bridge dies first
        return say("first run")

    desk.model.script = answer
    try:
        task = await desk.task("Cut after reading")
        await held(read)
        assert read.is_set() and desk.bridge.process is not None
        clis = children(desk.bridge.process.pid)
        await desk.bridge.kill()
        await desk.bridge.start()
        final = await desk.next_mail(task["session_id"], "final_summary")
    finally:
        release.set()
    assert final["body"] == "second run"
    firsts = [e for e in desk.model.exchanges(task["mail_id"]) if e.step == 0 and not _titling(e)]
    assert len(firsts) == 2 and INTERRUPTED_NOTE in firsts[1].task
    assert not [pid for pid in clis if running(pid)]
    assert len(await desk.mails(task["session_id"], "final_summary")) == 1
    assert not await desk.mails(task["session_id"], "turn_failed")


async def test_d_an_approved_command_cut_mid_run_is_asked_again(desk: Desk) -> None:
    """Kill cell (d): an approved command runs when the bridge dies. The restart ends
    what is left of it; the turn runs again and asks again, saying the approved run was
    interrupted; approved again, it runs to its end, and one final summary comes."""
    # The first run waits for ever; the run approved after the restart finds go.txt.
    command = "echo $$ >> cut-command.txt; test -e go.txt || exec sleep 600"
    desk.model.script = script(
        lambda exchange: call("read_mail", mail_id=mail_id_in(exchange)),
        call("Bash", command=command, description="Run the long command"),
        lambda exchange: say(f"The command said: {exchange.results[-1].text}"),
        title="Cut command",
    )
    task = await desk.task("Run the cut command")
    asked = await desk.next_mail(task["session_id"], "permission_request")
    await desk.decide(asked["mail_id"], "approve")
    ran = desk.file("cut-command.txt")
    pid = int(await appears(ran))
    assert desk.bridge.process is not None
    clis = children(desk.bridge.process.pid)
    await desk.bridge.kill()
    await desk.bridge.start()
    await ended(pid)  # ended by the restart, if its CLI's death had not ended it
    assert not [cli for cli in clis if running(cli)]
    again = await desk.next_mail(task["session_id"], "permission_request")
    assert again["mail_id"] != asked["mail_id"] and again["action"] == command
    assert "interrupted while the approved command ran" in again["body"]
    desk.file("go.txt").touch()
    await desk.decide(again["mail_id"], "approve")
    final = await desk.next_mail(task["session_id"], "final_summary")
    assert final["body"].startswith("The command said:")
    assert ran.read_text().count("\n") == 2  # the cut run and the approved re-run
    firsts = [e for e in desk.model.exchanges(task["mail_id"]) if e.step == 0 and not _titling(e)]
    assert len(firsts) == 2 and INTERRUPTED_NOTE in firsts[1].task
    assert len(await desk.mails(task["session_id"], "permission_request")) == 2
    assert len(await desk.mails(task["session_id"], "final_summary")) == 1


def _titling(exchange: Exchange) -> bool:
    return TITLE_REQUEST in exchange.system

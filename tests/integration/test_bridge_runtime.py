"""The bridge runtime on the stub platform, as a real process, against a real gateway
(both DBs): the ledger across SIGKILL, permissions across restarts, ordering,
concurrency, the hard timeout (docs/bridges.md)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridges.client import AgentClient
from tests.support.bridge import BridgeProcess, appears, file_text
from tests.support.gateway import PASSWORD, Api
from tests.support.http import HUMAN_SEND, ok
from tests.support.smtp import D, message, send
from tests.support.sse import SseStream, open_stream

INTERRUPTED = "(this turn was run again after an interruption)"


class World:
    def __init__(self, api: Api, human: httpx.AsyncClient, key: str, tmp: Path) -> None:
        self.api, self.human, self.key = api, human, key
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.data = tmp / "bridge-data"
        self.bridges: list[BridgeProcess] = []

    async def bridge(self, **env: str) -> BridgeProcess:
        bridge = BridgeProcess(self.api.base_url, self.key, self.data, self.workspace, **env)
        self.bridges.append(bridge)
        await bridge.start()
        return bridge

    async def task(self, steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        body = {"to": "builder@root", "subject": "task", "body": json.dumps({"steps": steps})}
        return ok(await self.human.post(HUMAN_SEND, json={**body, **extra}))

    async def finals(self, session_id: str) -> list[dict[str, Any]]:
        detail = ok(await self.human.get(f"/api/v1/me/sessions/{session_id}"))
        return [m for m in detail["mails"] if m["mail_type"] == "final_summary"]

    def file(self, name: str) -> Path:
        return self.workspace / name


@pytest.fixture
async def world(api: Api, tmp_path: Path) -> AsyncIterator[World]:
    human = await api.human("jianf")
    key = await api.agent_key()
    world = World(api, human, key, tmp_path)
    try:
        yield world
    finally:
        for bridge in world.bridges:
            await bridge.stop()


async def _reply(stream: SseStream, mail_type: str = "final_summary") -> dict[str, Any]:
    while True:
        event = await stream.next_of("new_mail", timeout=60)
        if event.json["mail_type"] == mail_type:
            data: dict[str, Any] = event.json
            return data


async def _completed(world: World, mail_id: str) -> None:
    """The ledger has the mail as completed (after its reply was acknowledged)."""
    ledger = world.data / "ledger.jsonl"
    async with asyncio.timeout(60):
        while not any(
            json.loads(line).get("state") == "completed" and json.loads(line)["mail_id"] == mail_id
            for line in (ledger.read_text().splitlines() if ledger.exists() else [])
        ):
            await asyncio.sleep(0.02)


def _touch_steps(reply: str) -> list[dict[str, Any]]:
    """The stub's script: ask to `touch done.txt`, run it, reply `reply`."""
    return [
        {"do": "ask", "action": "touch done.txt"},
        {"do": "run", "command": "touch done.txt"},
        {"do": "reply", "body": reply},
    ]


async def _decide(world: World, mail_id: str, decision: str, note: str | None = None) -> None:
    """The human's button in the web UI (the REST call behind it)."""
    body = {"mail_id": mail_id, "decision": decision, **({"note": note} if note else {})}
    decided = await world.human.post("/api/v1/me/permission/decide", json=body)
    assert decided.status_code == 200, decided.text


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_mail_gets_one_final_reply(world: World) -> None:
    await world.bridge()
    async with open_stream(world.human) as stream:
        task = await world.task([{"do": "reply", "body": "done"}])
        reply = await _reply(stream)
    assert reply["session_id"] == task["session_id"] and reply["auto"] is True
    mail = ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))
    assert mail["body"] == "done" and mail["parent_mail_id"] == task["mail_id"]


async def test_mail_sent_while_no_bridge_ran_is_caught_up_once(world: World) -> None:
    async with AgentClient(world.api.base_url, world.key) as agent:
        await agent.register("builder", [{"name": "root", "path": str(world.workspace)}])
    async with open_stream(world.human) as stream:
        task = await world.task([{"do": "reply", "body": "caught up"}])
        await world.bridge()  # the mail is in the unread inbox, not in any event it sees
        reply = await _reply(stream)
    assert reply["session_id"] == task["session_id"]
    assert len(await world.finals(task["session_id"])) == 1


async def test_a_conversation_renamed_mid_turn_still_gets_its_reply(world: World) -> None:
    """The task's `from` names the conversation by its alias at arrival; a rename during
    the turn (a platform's title synced back, then a human's) must not lose the reply,
    and the reply's subject stays `Re: <task subject>`, not the platform's title."""
    await world.bridge()
    steps = [
        {"do": "mark", "file": "started"},
        {"do": "wait_file", "file": "go"},
        {"do": "reply", "body": "done"},
    ]
    async with open_stream(world.human) as stream:
        task = await world.task(steps, session_alias="before")
        await appears(world.file("started"))
        async with AgentClient(world.api.base_url, world.key) as agent:
            title = "Platform title"
            await agent.sync_session(task["session_id"], session_alias="titled", title=title)
        renamed = {"session_alias": "after"}
        ok(await world.human.patch(f"/api/v1/me/sessions/{task['session_id']}", json=renamed))
        world.file("go").touch()
        reply = await _reply(stream)
    assert reply["session_id"] == task["session_id"] and reply["session_alias"] == "after"
    assert reply["to"] == "jianf@.after"
    assert reply["subject"] == "Re: task"


async def test_sigkill_mid_turn_runs_it_again_once_with_the_note(world: World) -> None:
    bridge = await world.bridge()
    steps = [
        {"do": "mark", "file": "started"},
        {"do": "wait_file", "file": "go"},
        {"do": "reply", "body": "done"},
    ]
    async with open_stream(world.human) as stream:
        task = await world.task(steps)
        worker = int(await appears(world.file("started")))
        await bridge.kill()
        os.kill(worker, 9)  # the host went down: its worker with it
        world.file("started").unlink()
        await world.bridge()
        assert int(await appears(world.file("started"))) != worker  # run again
        world.file("go").touch()
        reply = await _reply(stream)
    assert INTERRUPTED in ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))["body"]
    assert len(await world.finals(task["session_id"])) == 1


async def test_after_completion_a_restart_runs_nothing_again(world: World) -> None:
    bridge = await world.bridge()
    async with open_stream(world.human) as stream:
        task = await world.task([{"do": "reply", "body": "first"}], session_alias="once")
        await _reply(stream)
        await _completed(world, task["mail_id"])
        await bridge.kill()
        await world.bridge()
        # A later mail of the same conversation runs after anything the restart queued.
        await world.task([{"do": "reply", "body": "second"}], to="builder@root.once")
        await _reply(stream)
    starts = [
        line for line in world.file("activity.log").read_text().splitlines() if " start " in line
    ]
    assert len(starts) == 2
    assert [m["body"] for m in await world.finals(task["session_id"])] == ["first", "second"]


async def test_a_decision_by_mail_goes_on_and_its_reply_is_not_run(world: World) -> None:
    """The gateway delivers the human's deciding reply as a mail too: it is the decision
    (and its note), which the parked turn gets; it must not start a turn of its own."""
    await world.bridge()
    steps = _touch_steps("done")
    async with open_stream(world.human) as stream:
        task = await world.task(steps)
        asked = await _reply(stream, "permission_request")
        request = ok(await world.human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
        assert request["subject"] == "[needs decision] #task: May I run `touch done.txt`?"
        answer = message(
            f"jianf@{D}",
            request["from_email"],
            f"Re: {request['subject']}",
            "1\n\nfine by me",
            In_Reply_To=request["message_id"],
            References=request["message_id"],
        )
        await send(world.api, "jianf", PASSWORD, answer)
        await _reply(stream)
    assert world.file("done.txt").exists()
    mails = ok(await world.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["mails"]
    [reply] = [m for m in mails if m["parent_mail_id"] == asked["mail_id"]]
    await _completed(world, reply["mail_id"])  # consumed, never handed to the platform
    assert len(await world.finals(task["session_id"])) == 1


async def test_a_permission_decided_while_the_bridge_is_down_goes_on(world: World) -> None:
    bridge = await world.bridge()
    steps = _touch_steps("done")
    async with open_stream(world.human) as stream:
        task = await world.task(steps)
        asked = await _reply(stream, "permission_request")
        request = ok(await world.human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
        assert request["action"] == "touch done.txt"
        await bridge.kill()
        await _decide(world, asked["mail_id"], "approve")
        assert not world.file("done.txt").exists()
        await world.bridge()
        await _reply(stream)
    assert world.file("done.txt").exists()
    assert world.file("commands.log").read_text().splitlines() == ["touch done.txt"]
    assert len(await world.finals(task["session_id"])) == 1


async def test_a_request_sent_but_not_recorded_is_found_after_a_restart(world: World) -> None:
    """Killed after the gateway took the permission request but before its record was
    written (the records left as that moment leaves them: the intent alone), decided
    while down: the intent is replayed under its key, finds the decided request, and
    the turn goes on from where it stopped — not run again, not asked again."""
    bridge = await world.bridge()
    steps = _touch_steps("done")
    async with open_stream(world.human) as stream:
        task = await world.task(steps)
        asked = await _reply(stream, "permission_request")
        await _question_recorded(world, asked["mail_id"])
        await bridge.kill()
        records = world.data / "permissions.jsonl"
        intents = [
            line
            for line in records.read_text().splitlines()
            if json.loads(line)["permission_mail_id"].startswith("asking:")
            and json.loads(line)["open"]
        ]
        assert len(intents) == 1, records.read_text()
        records.write_text(intents[0] + "\n")
        await _decide(world, asked["mail_id"], "approve")
        await world.bridge()
        reply = await _reply(stream)
    body = ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))["body"]
    assert body == "done"  # resumed with the decision, not run again with the note
    assert world.file("commands.log").read_text().splitlines() == ["touch done.txt"]
    assert len(await world.finals(task["session_id"])) == 1
    mails = ok(await world.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["mails"]
    assert [m["mail_id"] for m in mails if m["mail_type"] == "permission_request"] == [
        asked["mail_id"]
    ]


async def test_a_rejection_leaves_the_file_absent_and_tells_the_model(world: World) -> None:
    await world.bridge()
    steps = _touch_steps("finished")
    async with open_stream(world.human) as stream:
        await world.task(steps)
        asked = await _reply(stream, "permission_request")
        await _decide(world, asked["mail_id"], "reject", note="not now")
        reply = await _reply(stream)
    body = ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))["body"]
    assert "rejected: touch done.txt; not now" in body
    assert not world.file("done.txt").exists()


async def test_always_allow_is_kept_for_the_conversation(world: World) -> None:
    bridge = await world.bridge()
    steps = _touch_steps("ok")
    async with open_stream(world.human) as stream:
        first = await world.task(steps, session_alias="grants")
        asked = await _reply(stream, "permission_request")
        await _decide(world, asked["mail_id"], "always allow")
        await _reply(stream)
        await _completed(world, first["mail_id"])
        await bridge.kill()
        await world.bridge()  # the grant survives the restart
        await world.task(steps, to="builder@root.grants")
        reply = await _reply(stream)  # no permission_request before it
    assert reply["mail_type"] == "final_summary"
    assert world.file("commands.log").read_text().splitlines() == ["touch done.txt"] * 2
    open_requests = ok(await world.human.get("/api/v1/me/permissions", params={"state": "open"}))
    assert open_requests["total"] == 0


async def test_conversations_run_at_once_and_one_conversation_in_order(world: World) -> None:
    await world.bridge()
    async with open_stream(world.human) as stream:
        for n in range(3):  # three conversations: all three workers run together
            await world.task(
                [
                    {"do": "mark", "file": f"s{n}"},
                    {"do": "wait_file", "file": "release"},
                    {"do": "reply", "body": f"r{n}"},
                ],
                subject=f"c{n}",
                to="builder@root.new",
            )
        for n in range(3):
            await appears(world.file(f"s{n}"))
        world.file("release").touch()
        for _ in range(3):
            await _reply(stream)
        # Two mails to one conversation: strictly one after the other.
        first = await world.task(
            [
                {"do": "mark", "file": "a"},
                {"do": "wait_file", "file": "go-a"},
                {"do": "reply", "body": "a"},
            ],
            session_alias="order",
        )
        await world.task(
            [{"do": "mark", "file": "b"}, {"do": "reply", "body": "b"}], to="builder@root.order"
        )
        await appears(world.file("a"))
        assert not world.file("b").exists()
        world.file("go-a").touch()
        await _reply(stream)
        await _reply(stream)
    assert [m["body"] for m in await world.finals(first["session_id"])] == ["a", "b"]


async def test_a_full_pool_queues_the_next_turn(world: World) -> None:
    """With one worker, a second conversation's turn starts only after the first ended:
    the stub's activity log (written by the platform's processes) shows no overlap."""
    bridge = await world.bridge(AGENTMAIL_BRIDGE_WORKERS="1")
    async with open_stream(world.human) as stream:
        first = await world.task(
            [
                {"do": "mark", "file": "first.pid"},
                {"do": "wait_file", "file": "go"},
                {"do": "reply", "body": "first"},
            ],
            to="builder@root.new",
        )
        await appears(world.file("first.pid"))
        second = await world.task([{"do": "reply", "body": "second"}], to="builder@root.new")
        waits = f"conversation {second['session_id']} waits for a free worker"
        async with asyncio.timeout(60):
            while waits not in bridge.log():
                await asyncio.sleep(0.02)
        world.file("go").touch()
        replies = [await _reply(stream), await _reply(stream)]
    assert [r["session_id"] for r in replies] == [first["session_id"], second["session_id"]]
    activity = [line.split() for line in world.file("activity.log").read_text().splitlines()]
    assert [(what, mail) for _, what, mail, _ in activity] == [
        ("start", first["mail_id"]),
        ("end", first["mail_id"]),
        ("start", second["mail_id"]),
        ("end", second["mail_id"]),
    ]


async def test_a_stuck_turn_is_killed_and_frees_its_worker(world: World) -> None:
    await world.bridge(AGENTMAIL_BRIDGE_WORKERS="1", AGENTMAIL_BRIDGE_TURN_TIMEOUT="10")
    async with open_stream(world.human) as stream:
        stuck = await world.task([{"do": "hang"}], to="builder@root.new")
        report = await _reply(stream, "turn_failed")  # machine-readable: the turn failed
        # The one worker is free again: a later task runs (its own timeout starts anew).
        after = await world.task([{"do": "reply", "body": "after"}], to="builder@root.new")
        await _reply(stream)
    assert report["session_id"] == stuck["session_id"]
    assert len(await world.finals(after["session_id"])) == 1
    assert await world.finals(stuck["session_id"]) == []
    assert "stopped" in ok(await world.human.get(f"/api/v1/me/mail/{report['mail_id']}"))["body"]
    assert _dead(int(world.file("hang.pid").read_text()))


QUESTION = [
    {"do": "question", "text": "Which branch?", "options": ["main", "release"]},
    {"do": "run", "command": "touch asked.txt"},
    {"do": "reply", "body": "branch chosen"},
]


async def _answer(world: World, question: dict[str, Any], body: str) -> dict[str, Any]:
    """The human replies to the question mail, as the web UI's Reply does."""
    request = {"to": question["from"], "subject": "Re: task", "body": body}
    return ok(await world.human.post(HUMAN_SEND, json={**request, "reply_to": question["mail_id"]}))


async def test_a_question_is_mailed_and_the_reply_is_its_answer(world: World) -> None:
    await world.bridge()
    async with open_stream(world.human) as stream:
        task = await world.task(QUESTION)
        question = await _reply(stream, "question")
        mail = ok(await world.human.get(f"/api/v1/me/mail/{question['mail_id']}"))
        assert mail["body"].startswith("Which branch?\n\n1. main\n2. release")
        assert mail["subject"] == "[question] #task: Which branch?"
        assert mail["parent_mail_id"] == task["mail_id"] and mail["auto"] is True
        assert not world.file("asked.txt").exists()  # parked until the answer
        answer = await _answer(world, question, "2\n\nOn Monday, builder wrote:\n> Which branch?")
        reply = await _reply(stream)
    body = ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))["body"]
    assert body == "branch chosen (answer: release)"
    assert world.file("asked.txt").exists()
    # The answer was consumed by the question: never run as a task of its own.
    await _completed(world, answer["mail_id"])
    assert len(await world.finals(task["session_id"])) == 1
    assert (
        ok(await world.human.get(f"/api/v1/me/mail/{answer['mail_id']}"))["mail_type"] == "normal"
    )


async def _question_recorded(world: World, question_mail_id: str) -> None:
    """The bridge has written the open question down (it does so just after sending it)."""
    records = world.data / "permissions.jsonl"
    async with asyncio.timeout(60):
        while question_mail_id not in file_text(records):
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("record", ["kept", "lost"])
async def test_a_question_answered_while_the_bridge_is_down_goes_on_once(
    world: World, record: str
) -> None:
    bridge = await world.bridge()
    async with open_stream(world.human) as stream:
        task = await world.task(QUESTION)
        question = await _reply(stream, "question")
        await _question_recorded(world, question["mail_id"])
        await bridge.kill()
        if record == "lost":  # as if killed between sending the question and recording it
            (world.data / "permissions.jsonl").unlink()
        # Not a reply to the question mail: the asked human's next mail in the
        # conversation answers it too (a phone's "new mail" to the conversation).
        alias = question["session_alias"]
        body = {"to": f"builder@root.{alias}", "subject": "branch", "body": "main, please"}
        ok(await world.human.post(HUMAN_SEND, json=body))
        await world.bridge()
        reply = await _reply(stream)
    body_text = ok(await world.human.get(f"/api/v1/me/mail/{reply['mail_id']}"))["body"]
    # Lost: the turn runs again (with the note), asks again — the same question mail,
    # by its idempotency key — and finds the answer that catch-up had queued.
    again = f" {INTERRUPTED}" if record == "lost" else ""
    assert body_text == f"branch chosen{again} (answer: main, please)"
    assert world.file("commands.log").read_text().splitlines() == ["touch asked.txt"]
    assert len(await world.finals(task["session_id"])) == 1
    questions = ok(await world.human.get(f"/api/v1/me/sessions/{task['session_id']}"))["mails"]
    assert [m["mail_id"] for m in questions if m["mail_type"] == "question"] == [
        question["mail_id"]
    ]

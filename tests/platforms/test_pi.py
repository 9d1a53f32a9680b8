"""The pi bridge on the real pi (pi-coding-agent, `pi --mode rpc`), thinking with the fake
model: the checklist of docs/PLUGIN-CONTRACT.md for pi.

One gateway, one fake model and one bridge serve the whole file (each test works in
its own conversation, so they stay independent); the fake model's script is chosen by
the task's subject, which the bridge's notification carries into every request.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bridges.platforms.pi.rpc import PiProcess
from bridges.runtime.prompt import INTERRUPTED_NOTE
from tests.support import processes
from tests.support.bridge import held
from tests.support.desk import mail_id_in
from tests.support.fake_model import Exchange, Reply, Script, call, say, steps
from tests.support.http import HUMAN_SEND, ok
from tests.support.pi_world import PI, PiWorld, pi_world

pytestmark = pytest.mark.asyncio(loop_scope="module")


class Router:
    """The fake model's script: each test routes the turns whose task names its subject."""

    def __init__(self) -> None:
        self.routes: dict[str, Script] = {}

    async def __call__(self, exchange: Exchange) -> Reply:
        for key, script in self.routes.items():
            if key in exchange.task:
                reply = script(exchange)
                return await reply if inspect.isawaitable(reply) else reply
        return say("ok")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router() -> Router:
    return Router()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(router: Router, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[PiWorld]:
    async with pi_world(tmp_path_factory.mktemp("pi"), router) as running:
        yield running
    assert not running.model.errors, "the script failed:\n" + "\n".join(running.model.errors)
    assert not running.model.unhandled, f"pi asked for unknown paths: {running.model.unhandled}"


def _last_result(exchange: Exchange) -> str:
    return exchange.results[-1].text if exchange.results else ""


def _read_the_mail(exchange: Exchange) -> Reply:
    """What the notification asks: read_mail(mail_id="…"), through the mail tool."""
    return call("read_mail", mail_id=mail_id_in(exchange))


async def test_an_approved_command_runs_and_the_answer_comes_back(
    world: PiWorld, router: Router
) -> None:
    router.routes["approve-me"] = steps(
        _read_the_mail,
        call("bash", command="touch approved.txt"),
        lambda exchange: say(f"Created it. The tool said: {_last_result(exchange)}"),
    )
    sent = await world.task("approve-me")
    asked = await world.mail.reply(sent["session_id"], "permission_request")
    # The mail tool ran in the bridge: the model read the task's body through it.
    read = next(e for e in world.model.exchanges("approve-me") if e.step == 1)
    assert "Please: approve-me" in read.results[-1].text
    assert not read.results[-1].is_error
    request = await world.mail.read(asked["mail_id"])
    assert request["action"] == "touch approved.txt"
    assert request["expires_at"] is not None
    assert not (world.workspace / "approved.txt").exists()  # pi waits for the human

    await world.decide(asked["mail_id"], "approve")
    final = await world.mail.reply(sent["session_id"], "final_summary")
    assert (world.workspace / "approved.txt").exists()
    answer = await world.mail.read(final["mail_id"])
    assert answer["auto"] is True
    assert answer["parent_mail_id"] == sent["mail_id"]
    assert answer["body"].startswith("Created it.")
    assert len(world.mail.of(sent["session_id"], "permission_request")) == 1


async def test_a_rejected_command_does_not_run_and_the_model_reads_the_note(
    world: PiWorld, router: Router
) -> None:
    router.routes["reject-me"] = steps(
        call("bash", command="touch rejected.txt"),
        lambda exchange: say(f"Understood: {_last_result(exchange)}"),
    )
    sent = await world.task("reject-me")
    asked = await world.mail.reply(sent["session_id"], "permission_request")
    await world.decide(asked["mail_id"], "reject", note="not on a Friday")
    final = await world.mail.reply(sent["session_id"], "final_summary")

    assert not (world.workspace / "rejected.txt").exists()
    told = [e for e in world.model.exchanges("reject-me") if e.step == 1]
    assert len(told) == 1
    result = told[0].results[-1]
    assert result.text == "The human rejected `touch rejected.txt`. Their note: not on a Friday"
    body = (await world.mail.read(final["mail_id"]))["body"]
    assert "not on a Friday" in body


def _session_name(path: Path) -> str | None:
    """The name pi keeps for a session: its last `session_info` entry (session-format.md)."""
    name = None
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "session_info":
            name = entry.get("name")
    return name


async def test_always_allow_is_not_asked_again_and_the_session_goes_on(
    world: PiWorld, router: Router
) -> None:
    # The command writes what pi's shell sees: the model never gets the agent's key.
    router.routes["always-me"] = steps(call("bash", command="env > always.txt"), say("written"))
    sent = await world.task("always-me")
    session = sent["session_id"]
    asked = await world.mail.reply(session, "permission_request")
    await world.decide(asked["mail_id"], "always allow")
    await world.mail.reply(session, "final_summary")
    seen = (world.workspace / "always.txt").read_text()
    assert "AGENTMAIL_PI_TOOLS=" in seen  # pi's own environment…
    assert world.bridge.env["AGENTMAIL_AGENT_KEY"] not in seen  # …without the key
    # The alias the gateway settled on is pi's session name now.
    assert _session_name(world.session_file(session)) == sent["session_alias"]
    # Someone names the session in pi (pi's /name; here its RPC command): the next turn
    # makes that name the conversation's alias.
    await _name_in_pi(world, session, "Touch It Always")

    (world.workspace / "always.txt").unlink()
    again = await world.task("always-me again", to=f"pi@root.{sent['session_alias']}")
    assert again["session_id"] == session
    await world.mail.until(session, "final_summary", 2)
    assert (world.workspace / "always.txt").exists()
    assert len(world.mail.of(session, "permission_request")) == 1
    # The same pi session: the second turn's first request carries the first turn.
    first = next(e for e in world.model.exchanges("always-me again") if e.step == 0)
    assert any("always-me" in m.text and "again" not in m.text for m in first.messages)
    detail = ok(await world.human.get(f"/api/v1/me/sessions/{session}"))
    assert detail["session"]["session_alias"] == "touch-it-always"
    assert _session_name(world.session_file(session)) == "touch-it-always"


async def test_pi_asks_the_human_and_goes_on_with_the_answer(
    world: PiWorld, router: Router
) -> None:
    router.routes["ask-me"] = steps(
        call("question", question="Which colour?", options=["red", "blue"]),
        lambda exchange: say(f"Going on. {_last_result(exchange)}"),
    )
    sent = await world.task("ask-me")
    asked = await world.mail.reply(sent["session_id"], "question")
    question = await world.mail.read(asked["mail_id"])
    assert "Which colour?" in question["body"] and "blue" in question["body"]
    assert question["auto"] is True
    reply = {"to": question["from"], "subject": "Re: ask-me", "body": "2"}
    ok(await world.human.post(HUMAN_SEND, json={**reply, "reply_to": asked["mail_id"]}))

    final = await world.mail.reply(sent["session_id"], "final_summary")
    told = next(e for e in world.model.exchanges("ask-me") if e.step == 1)
    assert told.results[-1].text == "The human answered: blue"
    assert (await world.mail.read(final["mail_id"]))["body"] == (
        "Going on. The human answered: blue"
    )


async def _name_in_pi(world: PiWorld, session: str, name: str) -> None:
    pi = await PiProcess.spawn(
        [str(PI), "--mode", "rpc", "--session", str(world.session_file(session))],
        str(world.workspace),
        world.bridge.env,
    )
    try:
        assert (await pi.command("set_session_name", name=name))["success"]
    finally:
        await pi.close()


def _holds(journal: Path, text: str) -> bool:
    return journal.exists() and text in journal.read_text()


async def _recorded(journal: Path, text: str) -> None:
    """Once the bridge has written `text` into its journal (a few lines: read on the loop)."""
    async with asyncio.timeout(30):
        while not _holds(journal, text):
            await asyncio.sleep(0.02)


async def test_three_conversations_run_at_once(world: PiWorld, router: Router) -> None:
    arrived: list[Exchange] = []
    all_in = asyncio.Event()

    async def together(exchange: Exchange) -> Reply:
        if exchange.step == 0:  # each turn's first request waits for the other two
            arrived.append(exchange)
            if len(arrived) == 3:
                all_in.set()
            await held(all_in)
        return say("together done")

    router.routes["together-"] = together
    sent = [await world.task(f"together-{n}") for n in range(3)]
    for mail in sent:
        await world.mail.reply(mail["session_id"], "final_summary")
    assert len({mail["session_id"] for mail in sent}) == 3
    firsts = [e for e in world.model.exchanges("together-") if e.step == 0]
    assert len(firsts) == 3
    # Seen from pi's side: all three were asking the model at the same time.
    assert max(e.started for e in firsts) < min(e.finished or 0.0 for e in firsts)


async def test_two_mails_to_one_conversation_run_one_after_the_other(
    world: PiWorld, router: Router
) -> None:
    second_sent = asyncio.Event()

    async def first(exchange: Exchange) -> Reply:
        if exchange.step == 0:
            await held(second_sent)  # the first turn is still running when the second mail comes
        return say("first done")

    # Subjects with a space: the alias (serial-first) must not match the second's route.
    router.routes['"serial first"'] = first
    router.routes['"serial second"'] = lambda exchange: say("second done")
    one = await world.task("serial first")
    two = await world.task("serial second", to=f"pi@root.{one['session_alias']}")
    second_sent.set()
    assert two["session_id"] == one["session_id"]
    await world.mail.until(one["session_id"], "final_summary", 2)
    ones = world.model.exchanges('"serial first"')
    twos = world.model.exchanges('"serial second"')
    assert ones and twos
    assert min(e.started for e in twos) > max(e.finished or 0.0 for e in ones)


async def test_a_restart_runs_a_cut_turn_again_once_and_applies_a_decision_once(
    world: PiWorld, router: Router
) -> None:
    """The host goes down with one conversation waiting for a decision and another in
    the middle of a model request; the decision is taken while it is down."""
    router.routes["restart-parked"] = steps(
        call("bash", command="echo ran >> restarted.txt"), say("appended")
    )
    cut, release = asyncio.Event(), asyncio.Event()

    async def cut_short(exchange: Exchange) -> Reply:
        if INTERRUPTED_NOTE in exchange.task:
            return say("second run")
        cut.set()
        await held(release)  # never answered: the bridge dies first
        return say("first run")

    router.routes["restart-running"] = cut_short
    parked = await world.task("restart-parked")
    asked = await world.mail.reply(parked["session_id"], "permission_request")
    await _recorded(world.data / "permissions.jsonl", asked["mail_id"])
    busy = await world.task("restart-running")
    await held(cut)
    assert world.bridge.process is not None
    orphans = processes.children(world.bridge.process.pid)  # the parked pi, the busy one, the spare
    await world.bridge.kill()  # pi's dialog is lost with it
    release.set()
    await world.decide(asked["mail_id"], "approve")
    await world.bridge.start()

    await world.mail.reply(parked["session_id"], "final_summary")
    assert (world.workspace / "restarted.txt").read_text() == "ran\n"
    assert len(world.mail.of(parked["session_id"], "permission_request")) == 1
    [final] = await world.mail.until(busy["session_id"], "final_summary", 1)
    assert (await world.mail.read(final["mail_id"]))["body"] == "second run"
    runs = [e for e in world.model.exchanges("restart-running") if e.step == 0]
    assert len(runs) == 2 and INTERRUPTED_NOTE in runs[1].task
    # The old pis ended with their bridge (stdin closed): no second owner of a file.
    assert len(orphans) == 3 and not [pid for pid in orphans if processes.running(pid)]
    assert len(world.mail.of(busy["session_id"], "final_summary")) == 1


async def test_b_a_turn_cut_after_read_mail_runs_again_once(world: PiWorld, router: Router) -> None:
    """Kill cell (b): the model has read its task (read_mail marked it read) when the
    bridge dies. The ledger, not the read state, runs it again once, with the note;
    pi died with its bridge, so nothing answers on the closed pipe (no EPIPE)."""
    read, release = asyncio.Event(), asyncio.Event()

    async def cut_after_read(exchange: Exchange) -> Reply:
        if INTERRUPTED_NOTE in exchange.task:
            return say("second run")
        if exchange.step == 0:
            return _read_the_mail(exchange)
        read.set()
        await held(release)  # never answered: the bridge dies first
        return say("first run")

    router.routes["cut-after-read"] = cut_after_read
    sent = await world.task("cut-after-read")
    await held(read)
    assert world.bridge.process is not None
    pis = processes.children(world.bridge.process.pid)
    await world.bridge.kill()
    release.set()
    await world.bridge.start()
    [final] = await world.mail.until(sent["session_id"], "final_summary", 1)
    assert (await world.mail.read(final["mail_id"]))["body"] == "second run"
    runs = [e for e in world.model.exchanges("cut-after-read") if e.step == 0]
    assert len(runs) == 2 and INTERRUPTED_NOTE in runs[1].task
    assert not [pid for pid in pis if processes.running(pid)]
    assert "EPIPE" not in world.bridge.log_path.read_text()
    assert len(world.mail.of(sent["session_id"], "final_summary")) == 1


async def test_d_an_approved_command_cut_mid_run_is_asked_again(
    world: PiWorld, router: Router
) -> None:
    """Kill cell (d): an approved command runs (pi runs it detached) when the bridge dies.
    The restart ends the command; the turn runs again and asks again, saying the approved
    run was interrupted; rejected this time, it ran once, and one final reply comes."""
    command = "echo $$ >> cut-command.txt; exec sleep 600"

    def script(exchange: Exchange) -> Reply:
        if exchange.step == 0:
            return _read_the_mail(exchange)
        if exchange.step == 1:
            return call("bash", command=command)
        return say(f"the command said: {_last_result(exchange)}")

    router.routes["cut-command"] = script
    sent = await world.task("cut-command")
    asked = await world.mail.reply(sent["session_id"], "permission_request")
    await world.decide(asked["mail_id"], "approve")
    ran = world.workspace / "cut-command.txt"
    async with asyncio.timeout(30):
        while not _holds(ran, "\n"):
            await asyncio.sleep(0.02)
    pid = int(ran.read_text())
    await world.bridge.kill()
    assert processes.running(pid)  # detached: pi's death does not end it
    await world.bridge.start()
    await processes.ended(pid)  # ended by the restart
    _, again = await world.mail.until(sent["session_id"], "permission_request", 2)
    body = (await world.mail.read(again["mail_id"]))["body"]
    assert "interrupted while the approved command ran" in body
    await world.decide(again["mail_id"], "reject", "not twice")
    await world.mail.until(sent["session_id"], "final_summary", 1)
    assert ran.read_text().count("\n") == 1
    runs = [e for e in world.model.exchanges("cut-command") if e.step == 0]
    assert len(runs) == 2 and INTERRUPTED_NOTE in runs[1].task
    assert len(world.mail.of(sent["session_id"], "final_summary")) == 1

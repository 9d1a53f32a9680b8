"""The pi bridge on the real pi (pi-coding-agent, `pi --mode rpc`), thinking with the fake
model: issue 13's acceptance for pi (docs/PLUGIN-CONTRACT.md's checklist).

One gateway, one fake model and one bridge serve the whole file (each test works in
its own conversation, so they stay independent); the fake model's script is chosen by
the task's subject, which the bridge's notification carries into every request.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.support.fake_model import Exchange, Reply, Script, call, say, steps
from tests.support.pi_world import PiWorld, pi_world

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


async def test_an_approved_command_runs_and_the_answer_comes_back(
    world: PiWorld, router: Router
) -> None:
    router.routes["approve-me"] = steps(
        call("bash", command="touch approved.txt"),
        lambda exchange: say(f"Created it. The tool said: {_last_result(exchange)}"),
    )
    sent = await world.task("approve-me")
    asked = await world.mail.reply(sent["session_id"], "permission_request")
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
    router.routes["always-me"] = steps(call("bash", command="touch always.txt"), say("touched"))
    sent = await world.task("always-me")
    session = sent["session_id"]
    asked = await world.mail.reply(session, "permission_request")
    await world.decide(asked["mail_id"], "always allow")
    await world.mail.reply(session, "final_summary")
    assert (world.workspace / "always.txt").exists()
    # The alias the gateway settled on is pi's session name now.
    assert _session_name(world.session_file(session)) == sent["session_alias"]

    (world.workspace / "always.txt").unlink()
    again = await world.task("always-me again", to=f"pi@root.{sent['session_alias']}")
    assert again["session_id"] == session
    await world.mail.until(session, "final_summary", 2)
    assert (world.workspace / "always.txt").exists()
    assert len(world.mail.of(session, "permission_request")) == 1
    # The same pi session: the second turn's first request carries the first turn.
    first = next(e for e in world.model.exchanges("always-me again") if e.step == 0)
    assert any("always-me" in m.text and "again" not in m.text for m in first.messages)

"""The kill matrix's long cells, the same on every real platform (`make platforms-long`;
each platform's tests/platforms/test_*_long.py runs them in a world of kill_world.py).

SIGKILL the bridge (a) before the model's first request is answered (the task not read),
(c) while a permission is pending, decided after the restart, (e) after the final
summary (its ledger record kept, or lost); and restart the gateway and the bridge in
both orders with a mail and a decision sent while each is down. In every cell: the
command ran at most once, every task got exactly one final summary (no `turn_failed`),
and no process the killed bridge started is left running. Cells (b) and (d), and (a)
and (c) with the decision taken while the bridge is down, run in CI in each
platform's own test file.
"""

from __future__ import annotations

import asyncio

from bridges.runtime.prompt import INTERRUPTED_NOTE
from tests.support import processes
from tests.support.bridge import held
from tests.support.fake_model import Exchange, Reply, say
from tests.support.gateway import PASSWORD
from tests.support.kill_world import WAIT, KillWorld, asks, says
from tests.support.smtp import D, reply_by_mail, send


async def _one_answer_each(world: KillWorld, sessions: list[str]) -> None:
    """Every conversation has its final summary, exactly one, and no `turn_failed`."""
    for session_id in sessions:
        await world.until(session_id, "final_summary")
    for session_id in sessions:
        assert len(await world.mails(session_id, "final_summary")) == 1, session_id
        assert not await world.mails(session_id, "turn_failed"), session_id


async def _ended(pids: list[int]) -> None:
    """Every process of the killed bridge ends (its restart ends what outlived it)."""
    for pid in pids:
        await processes.ended(pid, timeout=WAIT)


async def _restarted(world: KillWorld) -> None:
    """SIGKILL the bridge, start it again on the same data dir; what the killed one had
    started is over."""
    before = world.started()
    await world.bridge.kill()
    await world.bridge.start()
    await _ended(before)


async def killed_before_the_first_model_request(world: KillWorld) -> None:
    """(a) The turn has started, the model has answered nothing (the task is unread):
    run again once with the note; it asks, is approved, runs once."""
    key = "cell-a"
    asked, release = asyncio.Event(), asyncio.Event()
    plan = asks(key)

    async def first_held(exchange: Exchange) -> Reply:
        if INTERRUPTED_NOTE not in exchange.task and f'"{key}"' in exchange.task:
            asked.set()
            await held(release)  # never answered: the bridge dies first
            return say("never read")
        return plan(exchange)

    task = await world.task(key, first_held)
    session = task["session_id"]
    try:
        await held(asked)
        assert asked.is_set(), "the platform never asked the model"
        await _restarted(world)
    finally:
        release.set()
    [request] = await world.until(session, "permission_request")
    await world.decide(request["mail_id"])
    await _one_answer_each(world, [session])
    [final] = await world.until(session, "final_summary")
    assert final["body"] == f"{key} done"
    assert world.runs(key) == 1
    firsts = world.first_requests(key)
    assert [INTERRUPTED_NOTE in e.task for e in firsts] == [False, True]


async def killed_while_a_permission_is_pending(world: KillWorld) -> None:
    """(c) The request stays open across the restart (not asked again); the decision,
    taken after the restart, resumes the turn; the command runs once."""
    key = "cell-c"
    task = await world.task(key, asks(key))
    session = task["session_id"]
    [request] = await world.until(session, "permission_request")
    await world.recorded("permissions.jsonl", request["mail_id"])
    await _restarted(world)
    await world.decide(request["mail_id"])
    await _one_answer_each(world, [session])
    assert world.runs(key) == 1
    assert len(await world.mails(session, "permission_request")) == 1


async def killed_after_the_final_summary(world: KillWorld, record: str) -> None:
    """(e) Answered: nothing runs again. `lost`: killed between sending the summary and
    recording it; the gateway's copy of the answer is found, nothing runs either. The
    conversation's next mail runs as usual."""
    first_key, next_key = "cell-e-first", "cell-e-next"
    first = await world.task(first_key, asks(first_key))
    session = first["session_id"]
    [request] = await world.until(session, "permission_request")
    await world.decide(request["mail_id"])
    await world.until(session, "final_summary")
    await world.completed(first["mail_id"])
    before = world.started()
    await world.bridge.kill()
    if record == "lost":
        ledger = world.data / "ledger.jsonl"
        kept = [line for line in ledger.read_text().splitlines() if '"completed"' not in line]
        ledger.write_text("".join(line + "\n" for line in kept))
    await world.bridge.start()
    await _ended(before)
    to = f"builder@root.{await world.alias(session)}"
    second = await world.task(next_key, says(next_key), to=to)
    assert second["session_id"] == session
    finals = await world.until(session, "final_summary", 2)
    assert [f["parent_mail_id"] for f in finals] == [first["mail_id"], second["mail_id"]]
    assert [f["body"] for f in finals] == [f"{first_key} done", f"{next_key} done"]
    assert not await world.mails(session, "turn_failed")
    assert world.runs(first_key) == 1
    assert len(world.first_requests(first_key)) == 1  # not run again


async def bridge_then_gateway(world: KillWorld) -> None:
    """The bridge is killed (a decision and a mail while it is down) and started again;
    at once — within 2 s of its restart — the gateway goes away (a decision by a mail
    reply `1` over SMTP and a mail while it is away) and comes back. Nothing skipped."""
    one = await world.task("order-one", asks("order-one"))
    two = await world.task("order-two", asks("order-two"))
    [first] = await world.until(one["session_id"], "permission_request")
    [second] = await world.until(two["session_id"], "permission_request")
    await world.recorded("permissions.jsonl", first["mail_id"])
    await world.recorded("permissions.jsonl", second["mail_id"])
    before = world.started()
    await world.bridge.kill()
    await world.decide(first["mail_id"])
    three = await world.task("order-three", says("order-three"))
    await world.bridge.start()
    await world.gateway_away()
    await send(world.api, "jianf", PASSWORD, reply_by_mail(f"jianf@{D}", second, "1"))
    four = await world.task("order-four", says("order-four"))
    await world.bridge_waits("reconnecting")
    await world.gateway_back()
    sessions = [mail["session_id"] for mail in (one, two, three, four)]
    await _one_answer_each(world, sessions)
    assert (world.runs("order-one"), world.runs("order-two")) == (1, 1)
    await _ended(before)


async def gateway_then_bridge(world: KillWorld) -> None:
    """The gateway goes away, then the bridge is killed and started while it is still
    away (it waits, no traceback); a decision and a mail meanwhile; the gateway comes
    back, the bridge comes up with it. Nothing skipped."""
    five = await world.task("order-five", asks("order-five"))
    [request] = await world.until(five["session_id"], "permission_request")
    await world.recorded("permissions.jsonl", request["mail_id"])
    before = world.started()
    await world.gateways.down()
    await world.bridge.kill()
    await world.bridge.launch()
    await world.bridge_waits("is not reachable")
    await world.gateway_away()  # the humans go on meanwhile, on another port
    await world.decide(request["mail_id"])
    six = await world.task("order-six", says("order-six"))
    await world.gateway_back()
    await world.bridge.wait_ready(timeout=WAIT)
    await _one_answer_each(world, [five["session_id"], six["session_id"]])
    assert world.runs("order-five") == 1
    await _ended(before)
    assert "Traceback" not in world.bridge.log(), world.bridge.log()

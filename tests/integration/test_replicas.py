"""Three gateway replicas on one PostgreSQL database: every entrance, every guarantee.

The replicas are real `agentmail serve` processes on their own ports (tests/support/
cluster.py), started together on an empty database, so they also race to migrate it
and to create its admin. What one commits, a client of another sees; budgets, rate
limits, alias uniqueness and decisions hold because they live in rows and row
locks, never in a process's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from tests.support import databases
from tests.support.cli import agentmail, summary
from tests.support.cluster import database_counters, replicas, warnings_in
from tests.support.gateway import PASSWORD, Api
from tests.support.http import AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok
from tests.support.imap import exists_reaches, idle_client, imap_login
from tests.support.mail_archive import message as archived
from tests.support.mail_archive import write_mbox
from tests.support.serve_process import ServedGateway
from tests.support.smtp import D, message, reply_by_mail, session
from tests.support.sse import SseStream, open_stream
from tests.support.webhook_receiver import webhook_receiver

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.postgres]

RATE = 20  # AGENTMAIL_NEW_CONVERSATIONS_PER_HOUR of the cluster


@dataclass
class Cluster:
    url: str
    root: Path
    replicas: list[ServedGateway]
    apis: list[Api]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def cluster(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Cluster]:
    url = await databases.create_empty_postgres_database()
    root = tmp_path_factory.mktemp("replicas")
    try:
        env = {
            "AGENTMAIL_NEW_CONVERSATIONS_PER_HOUR": str(RATE),
            "AGENTMAIL_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS": "true",  # the receiver on loopback
        }
        async with replicas(url, root, 3, **env) as running:
            apis = [Api(replica) for replica in running]  # type: ignore[arg-type]
            try:
                yield Cluster(url, root, running, apis)
            finally:
                for api in apis:
                    await api.close()
    finally:
        await databases.release_postgres_database(url)


@pytest.fixture(autouse=True)
def _no_warnings(cluster: Cluster) -> Iterator[None]:
    """Every test leaves the replicas' logs without a warning: a write that met a
    deadlock is run again (core/store/engine.py) and logs it — still a lock-order bug."""
    yield
    assert warnings_in(cluster.root) == []


async def _new_mails(stream: SseStream, count: int) -> list[tuple[int, str]]:
    """(event id, subject) of the next `count` new_mail events, then proof of no more."""
    seen: list[tuple[int, str]] = []
    while len(seen) < count:
        event = await stream.next_of("new_mail", timeout=30)
        assert event.id is not None
        seen.append((int(event.id), event.json["subject"]))
    assert await stream.nothing_within(1.0)  # not one twice
    return seen


def _everywhere(cluster: Cluster, client: httpx.AsyncClient) -> list[httpx.AsyncClient]:
    """Clients with `client`'s key on each replica, in replica order."""
    token = client.headers["Authorization"].removeprefix("Bearer ")
    return [api.client(token) for api in cluster.apis]


async def _smtp_send(replica: Api, sender: str, to: str, subject: str) -> None:
    client = await session(replica, sender, PASSWORD)
    try:
        await client.send_message(message(f"{sender}@{D}", to, subject, "by SMTP"))
    finally:
        await client.quit()


async def _import(cluster: Cluster, recipient: str, count: int, work: Path) -> None:
    when = datetime(2024, 5, 1, tzinfo=UTC)
    messages = [
        archived(
            f"<old-{n}@example.org>",
            "bob@example.org",
            [f"{recipient}@{D}"],
            f"archived {n}",
            "from the archive",
            when,
            attachments=[(f"old-{n}.bin", f"archived bytes {n}".encode())],
        )
        for n in range(count)
    ]
    path = work / "archive.mbox"
    write_mbox(path, messages)
    env = {"AGENTMAIL_ATTACHMENTS_DIR": str(cluster.root / "attachments")}
    result = await agentmail("import", str(path), db=cluster.url, data_dir=work, env=env)
    assert summary(result.output)["imported"] == count, result.output


async def test_every_entrance_reaches_sse_and_idle_on_other_replicas_once_in_order(
    cluster: Cluster, tmp_path: Path
) -> None:
    """SSE on replica 1, IDLE on replica 2; REST into replica 3, SMTP into replica 2,
    an import from a fourth process. IMAP UIDs ascend in the order of the events."""
    r1, r2, r3 = cluster.apis
    await r1.human("reader")
    await r1.human("writer")
    builder = await r3.agent("builder")
    reader = await r1.login("reader", PASSWORD)
    each, imported = 8, 4
    async with open_stream(reader) as stream:
        idle = await idle_client(cluster.replicas[1], "reader")
        waiting = await idle.idle_start(timeout=120)
        by_rest = [
            builder.post(AGENT_SEND, json={"to": "reader@", "subject": f"rest {n}", "body": "x"})
            for n in range(each)
        ]
        by_smtp = [_smtp_send(r2, "writer", f"reader@{D}", f"smtp {n}") for n in range(each)]
        done = await asyncio.gather(
            *by_rest, *by_smtp, _import(cluster, "reader", imported, tmp_path)
        )
        assert all(ok(r) for r in done[:each])
        events = await _new_mails(stream, 2 * each)
        await exists_reaches(idle, 2 * each + imported)
        idle.idle_done()
        await asyncio.wait_for(waiting, 30)
        await idle.logout()

    ids = [event_id for event_id, _ in events]
    assert ids == sorted(set(ids))
    assert len({subject for _, subject in events}) == 2 * each
    # The INBOX of replica 3 in UID order: the same mails, in the order of the events.
    async with imap_login(cluster.replicas[2], "reader") as imap:  # type: ignore[arg-type]
        await imap.ok("select", "INBOX")
        fetched = await imap.uid("FETCH", "1:*", "(UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    in_uid_order = []
    for item in fetched:
        if isinstance(item, tuple):
            uid = re.search(rb"UID (\d+)", item[0])
            subject = re.search(rb"Subject: ([^\r\n]+)", item[1])
            assert uid is not None and subject is not None, item
            in_uid_order.append((int(uid.group(1)), subject.group(1).decode()))
    uids = [uid for uid, _ in in_uid_order]
    assert uids == sorted(set(uids)) and len(uids) == 2 * each + imported
    assert [s for _, s in in_uid_order if not s.startswith("archived")] == [
        subject for _, subject in events
    ]

    # The imported attachments are in the one shared directory: another replica serves them.
    inbox = ok(await reader.get(f"{HUMAN_MAIL}/inbox", params={"status": "all", "limit": 100}))
    old = [m for m in inbox["mails"] if m["subject"].startswith("archived")]
    on_r3 = await r3.login("reader", PASSWORD)
    for mail in old:
        [attachment] = ok(await reader.get(f"{HUMAN_MAIL}/{mail['mail_id']}"))["attachments"]
        download = await on_r3.get(f"/api/v1/me/attachments/{attachment['attachment_id']}")
        assert download.content.startswith(b"archived bytes"), download.text


async def test_an_upload_on_one_replica_is_sent_by_another_and_served_by_a_third(
    cluster: Cluster,
) -> None:
    r1, _, r3 = cluster.apis
    await r1.human("keeper")
    uploader = await r1.agent("uploader")
    on_r2 = _everywhere(cluster, uploader)[1]
    content = bytes(range(256)) * 64
    upload = await uploader.post(
        "/api/v1/attachments", files={"file": ("data.bin", content, "application/octet-stream")}
    )
    attachment_id = ok(upload)["attachment_id"]
    sent = ok(
        await on_r2.post(
            AGENT_SEND,
            json={"to": "keeper@", "subject": "a file", "attachment_ids": [attachment_id]},
        )
    )
    keeper = await r3.login("keeper", PASSWORD)
    [got] = ok(await keeper.get(f"{HUMAN_MAIL}/{sent['mail_id']}"))["attachments"]
    download = await keeper.get(f"/api/v1/me/attachments/{got['attachment_id']}")
    assert download.status_code == 200 and download.content == content


async def test_a_budget_of_five_accepts_five_of_fifty_sends_over_three_replicas(
    cluster: Cluster,
) -> None:
    r1 = cluster.apis[0]
    human = await r1.human("budgeter")
    spender = await r1.agent("spender")
    task = ok(
        await human.post(
            HUMAN_SEND,
            json={"to": "spender@", "subject": "five rounds", "session_alias": "five", "budget": 5},
        )
    )
    assert task["budget_remaining"] == 5
    clients = _everywhere(cluster, spender)
    answers = await asyncio.gather(
        *(
            clients[n % 3].post(
                AGENT_SEND, json={"to": "budgeter@.five", "subject": f"round {n}", "body": "."}
            )
            for n in range(50)
        )
    )
    statuses = [a.status_code for a in answers]
    assert statuses.count(200) == 5, statuses
    assert all(
        a.json()["error"]["code"] == "budget_exhausted" for a in answers if a.status_code != 200
    )
    detail = ok(await human.get(f"/api/v1/me/sessions/{task['session_id']}"))
    assert (detail["session"]["budget_used"], detail["session"]["budget_limit"]) == (5, 5)


async def test_the_conversation_rate_and_alias_uniqueness_hold_over_three_replicas(
    cluster: Cluster,
) -> None:
    """30 new conversations asked for at once, all named `race`: exactly RATE open, each
    under its own alias (race, race-2, …), the rest are refused with 429."""
    r1 = cluster.apis[0]
    await r1.human("target")
    clients = _everywhere(cluster, await r1.agent("opener"))
    answers = await asyncio.gather(
        *(
            clients[n % 3].post(
                AGENT_SEND,
                json={"to": "target@.new", "subject": "race", "session_alias": "race"},
            )
            for n in range(RATE + 10)
        )
    )
    accepted = [a.json() for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code != 200]
    assert len(accepted) == RATE, [a.status_code for a in answers]
    assert {a.status_code for a in refused} == {429}
    assert all(a.json()["error"]["code"] == "rate_limited" for a in refused)
    aliases = sorted(a["session_alias"] for a in accepted)
    assert aliases == sorted(["race", *(f"race-{n}" for n in range(2, RATE + 1))])


async def test_a_hundred_decisions_and_the_sweeps_of_three_replicas_decide_each_once(
    cluster: Cluster,
) -> None:
    """Half the requests expire within a second while the human decides all of them,
    by the web button and by replying, on every replica; every replica's expiry
    sweep runs meanwhile. No 5xx, no 451: each request is decided or expired once."""
    r1, r2, r3 = cluster.apis
    decider = await r1.human("decider")
    asker = await r2.agent("asker")
    askers = _everywhere(cluster, asker)
    # Four conversations: each write into one holds its row lock to the commit, so
    # a hundred requests in one would only queue behind each other.
    tasks = [
        ok(
            await decider.post(
                HUMAN_SEND,
                json={"to": "asker@.new", "subject": f"asks {n}", "budget": "unlimited"},
            )
        )
        for n in range(4)
    ]
    total = 100

    def ask(n: int) -> Any:
        body: dict[str, Any] = {
            "to": "decider@",
            "question": f"May I take step {n}?",
            "options": ["approve", "reject"],
            "session_id": tasks[n % 4]["session_id"],
        }
        if n % 2:
            body["expires_in"] = 1
        return askers[n % 3].post("/api/v1/permission/request", json=body)

    async with open_stream(askers[2]) as stream:
        asked = [ok(r)["mail_id"] for r in await asyncio.gather(*(ask(n) for n in range(total)))]
        listed = ok(
            await decider.get("/api/v1/me/permissions", params={"limit": 500, "order": "oldest"})
        )["mails"]
        requests = {m["mail_id"]: m for m in listed}
        assert set(requests) == set(asked)
        deciders = [
            decider,
            await r2.login("decider", PASSWORD),
            await r3.login("decider", PASSWORD),
        ]

        async def by_button(n: int, mail_id: str) -> int:
            answer = await deciders[n % 3].post(
                "/api/v1/me/permission/decide", json={"mail_id": mail_id, "decision": "approve"}
            )
            return answer.status_code

        async def by_reply(n: int, mail_id: str) -> int:
            reply = reply_by_mail(f"decider@{D}", requests[mail_id], "2\n")
            client = await session(cluster.apis[n % 3], "decider", PASSWORD)
            try:
                await client.send_message(reply)
            finally:
                await client.quit()
            return 250

        outcomes = await asyncio.gather(
            *(
                (by_button if n % 4 < 2 else by_reply)(n, mail_id)
                for n, mail_id in enumerate(asked)
            ),
            return_exceptions=True,
        )
        assert [o for o in outcomes if isinstance(o, BaseException)] == []
        buttons = {asked[n]: o for n, o in enumerate(outcomes) if n % 4 < 2}
        assert set(buttons.values()) <= {200, 409}, buttons

        outcome: dict[str, list[str]] = {}
        async with asyncio.timeout(30):
            while sum(len(states) for states in outcome.values()) < total:
                event = await stream.next_of("permission_decision")
                outcome.setdefault(event.json["mail_id"], []).append(event.json["state"])
        # Two more sweeps of each replica: no request is decided or expired twice.
        with contextlib.suppress(TimeoutError):
            while True:
                event = await stream.next_of("permission_decision", timeout=2.0)
                outcome.setdefault(event.json["mail_id"], []).append(event.json["state"])
    assert set(outcome) == set(asked)
    assert all(len(states) == 1 for states in outcome.values())
    for mail_id, status in buttons.items():
        assert outcome[mail_id] == (["decided"] if status == 200 else ["expired"])
    final = ok(await decider.get("/api/v1/me/permissions", params={"limit": 500}))["mails"]
    assert {m["mail_id"]: m["permission_state"] for m in final} == {
        mail_id: states[0] for mail_id, states in outcome.items()
    }
    assert sorted({m["decision"] for m in final if m["permission_state"] == "decided"}) in (
        ["approve", "reject"],
        ["approve"],
        ["reject"],
    )
    for replica in cluster.replicas:
        counters = await database_counters(replica)
        assert counters.get("agentmail_database_errors_total", 0) == 0, counters


async def test_each_event_is_posted_to_a_webhook_once_by_one_of_three_replicas(
    cluster: Cluster,
) -> None:
    """Every replica's sender is woken by every commit (NOTIFY) and claims at once; the
    lease lets one of them post each delivery, once."""
    r1, r2, _ = cluster.apis
    await r1.human("hooked")
    hooked = await r2.login("hooked", PASSWORD)
    agents = [await api.agent(f"hooker{n}") for n, api in enumerate(cluster.apis)]
    count = 12
    async with webhook_receiver() as receiver:
        made = await hooked.post("/api/v1/me/webhooks", json={"url": receiver.url})
        assert made.status_code == 201, made.text
        hook = made.json()
        sends = [
            agents[n % 3].post(AGENT_SEND, json={"to": "hooked@", "subject": f"n{n}", "body": "x"})
            for n in range(count)
        ]
        assert all(ok(r) for r in await asyncio.gather(*sends))
        got = await receiver.wait_for(count)
        url = f"/api/v1/me/webhooks/{hook['webhook_id']}/deliveries"
        async with asyncio.timeout(30):
            while any(d["state"] == "pending" for d in ok(await hooked.get(url))["deliveries"]):
                await asyncio.sleep(0.05)
        listed = ok(await hooked.get(url))["deliveries"]
    assert len(receiver.received) == count  # not one more came while they settled
    assert len({r.headers["webhook-id"] for r in got}) == count
    assert {r.verified(hook["secret"])["data"]["subject"] for r in got} == {
        f"n{n}" for n in range(count)
    }
    assert [(d["state"], d["attempts"]) for d in listed] == [("delivered", 1)] * count

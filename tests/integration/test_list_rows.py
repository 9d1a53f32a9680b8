"""List rows: the plain excerpt and task counts kept per mail (REST and SMTP), the
backfill of mail stored without them, and the rows endpoints' shape and paging."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select, update

from core.mail.excerpt_backfill import fill_excerpts
from core.mail.list_rows import MailRowList
from core.store.models import Mail
from tests.support.gateway import PASSWORD, Api
from tests.support.http import AGENT_MAIL, HUMAN_MAIL, HUMAN_SEND, ok
from tests.support.smtp import D, message, send

PLAN = """### The plan

**First** read [the notes](https://example.com/notes), then:

- [x] parse the log
- [ ] find the leak
- [ ] fix it

```
- [x] not a task
```
"""
PLAIN = "The plan First read the notes, then: parse the log find the leak fix it"


async def _send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", "rows")
    body.setdefault("body", "hello")
    return ok(await client.post(url, json={"to": to, **body}))


async def _stored(api: Api, mail_id: str) -> tuple[str | None, int, int]:
    store = api.gateway.store
    assert store is not None
    query = select(Mail.excerpt, Mail.tasks_done, Mail.tasks_total).where(Mail.id == mail_id)
    excerpt, done, total = await store.read(lambda session: session.execute(query).one())
    return excerpt, done, total


async def test_rest_and_smtp_mail_keep_a_plain_excerpt_and_task_counts(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    sent = await _send(human, HUMAN_SEND, "builder@ModelRouter", body=PLAN)
    assert await _stored(api, sent["mail_id"]) == (PLAIN, 1, 3)
    [row] = ok(await builder.get(f"{AGENT_MAIL}/inbox/rows"))["rows"]
    assert (row["excerpt"], row["tasks_done"], row["tasks_total"]) == (PLAIN, 1, 3)
    mail = ok(await builder.get(f"{AGENT_MAIL}/{sent['mail_id']}"))
    assert (mail["body_preview"], mail["tasks_done"], mail["tasks_total"]) == (PLAIN, 1, 3)

    await send(api, "jianf", PASSWORD, message(f"jianf@{D}", f"builder+ModelRouter@{D}", body=PLAN))
    rows = ok(await builder.get(f"{AGENT_MAIL}/inbox/rows"))["rows"]
    assert [(r["excerpt"], r["tasks_done"], r["tasks_total"]) for r in rows] == [
        (PLAIN, 1, 3),
        (PLAIN, 1, 3),
    ]


async def test_rows_carry_what_a_row_shows_with_the_inbox_paging(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(5):
        await _send(human, HUMAN_SEND, "builder@ModelRouter", subject=f"m{n}", body=f"**b{n}**")
    inbox = f"{AGENT_MAIL}/inbox/rows"
    page = ok(await builder.get(inbox, params={"limit": 2, "offset": 1}))
    assert (page["total"], page["total_exact"], page["has_more"]) == (5, True, True)
    MailRowList.model_validate(page)  # what the OpenAPI document says it is
    assert [r["subject"] for r in page["rows"]] == ["m3", "m2"]
    row = page["rows"][0]
    assert set(row) == {
        "mail_id", "session_id", "session_alias", "from", "to", "subject", "excerpt",
        "created_at", "mail_type", "auto", "permission_state", "delivery", "status",
        "flagged", "answered", "folder_id", "attachment_count", "tasks_done", "tasks_total",
    }  # fmt: skip
    assert (row["from"], row["excerpt"], row["status"], row["delivery"]) == (
        f"jianf@.{row['session_alias']}",
        "b3",
        "unread",
        "to",
    )
    assert row["attachment_count"] == 0
    oldest = ok(await builder.get(inbox, params={"order": "oldest", "limit": 1}))
    assert [r["subject"] for r in oldest["rows"]] == ["m0"]
    last = ok(await builder.get(inbox, params={"offset": 3, "limit": 2}))
    assert ([r["subject"] for r in last["rows"]], last["has_more"]) == (["m1", "m0"], False)
    await builder.post(f"{AGENT_MAIL}/{row['mail_id']}/read")
    unread = ok(await builder.get(inbox, params={"status": "unread"}))
    assert (unread["total"], row["mail_id"] in {r["mail_id"] for r in unread["rows"]}) == (4, False)

    mine = ok(await human.get(f"{HUMAN_MAIL}/sent/rows", params={"limit": 3}))
    assert (mine["total"], [r["subject"] for r in mine["rows"]]) == (5, ["m4", "m3", "m2"])
    assert {(r["delivery"], r["status"], r["to"].split(".")[0]) for r in mine["rows"]} == {
        (None, None, "builder@ModelRouter")
    }
    # The same checks on the parameters as the full listing.
    for bad in ({"status": "spam"}, {"limit": 0}, {"limit": 501}, {"folder_id": "x" * 65}):
        assert (await builder.get(inbox, params=bad)).status_code == 422
    answer = await builder.get(f"{AGENT_MAIL}/sent/rows", params={"limit": 1})
    assert ok(answer)["total"] == 0


async def test_the_backfill_fills_mail_stored_without_an_excerpt(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    ids = [
        (await _send(human, HUMAN_SEND, "builder@ModelRouter", body=f"## n{n}\n\n- [x] a"))[
            "mail_id"
        ]
        for n in range(7)
    ]
    store = api.gateway.store
    assert store is not None
    await store.write(lambda session: session.execute(update(Mail).values(excerpt=None)))
    # Until filled, lists show the body's start.
    rows = ok(await builder.get(f"{AGENT_MAIL}/inbox/rows"))["rows"]
    assert rows[0]["excerpt"] == "## n6 - [x] a"
    assert await fill_excerpts(store, pause=0, batch_rows=3) == 7
    assert [await _stored(api, mail_id) for mail_id in ids] == [(f"n{n} a", 1, 1) for n in range(7)]
    assert await fill_excerpts(store, pause=0) == 0  # nothing left: a restart does nothing
    rows = ok(await builder.get(f"{AGENT_MAIL}/inbox/rows"))["rows"]
    assert rows[0]["excerpt"] == "n6 a"


async def test_a_conversation_says_its_unread_mail_and_latest_task_list(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    first = await _send(human, HUMAN_SEND, "builder@ModelRouter", subject="tasks", body="go")
    reply = {"to": "jianf@", "reply_to": first["mail_id"]}
    tasked = await _send(builder, f"{AGENT_MAIL}/send", **reply, body="- [x] a\n- [ ] b\n- [ ] c")
    await _send(builder, f"{AGENT_MAIL}/send", **reply, body="**Done** for now")
    [conversation] = ok(await human.get("/api/v1/me/sessions"))["sessions"]
    assert conversation["unread"] == 2
    assert conversation["tasks"] == {"mail_id": tasked["mail_id"], "done": 1, "total": 3}
    assert conversation["latest"]["excerpt"] == "Done for now"
    assert conversation["budget_used"] == 2
    ok(await human.post(f"{HUMAN_MAIL}/{tasked['mail_id']}/read"))
    [conversation] = ok(await human.get("/api/v1/me/sessions"))["sessions"]
    assert conversation["unread"] == 1
    [theirs] = ok(await builder.get("/api/v1/sessions"))["sessions"]
    assert (theirs["unread"], theirs["tasks"]["total"]) == (1, 3)

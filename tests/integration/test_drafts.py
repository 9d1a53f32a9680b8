"""Drafts over REST: save, list, read, replace, delete and send."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import refused
from tests.support.sse import open_stream

DRAFTS = "/api/v1/me/drafts"
D = "agentmail.localhost"


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def save(client: httpx.AsyncClient, **draft: Any) -> dict[str, Any]:
    return ok(await client.post(DRAFTS, json=draft), 201)


async def listed(client: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    body = ok(await client.get(DRAFTS, params=params))
    assert body["total"] == len(body["drafts"])
    drafts: list[dict[str, Any]] = body["drafts"]
    return drafts


async def test_save_list_read_replace_and_delete(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])

    empty = await save(jianf)
    assert empty["to"] is None and empty["to_email"] is None
    assert (empty["cc"], empty["subject"], empty["body"], empty["budget"]) == ([], "", "", None)
    assert empty["created_at"] == empty["updated_at"]

    full = await save(
        jianf,
        to=f"Builder+ModelRouter@{D}",
        cc=["alice@", "  "],
        subject="  Add a health check ",
        body="## Need\n\nAdd `/health`.",
        session_alias="Health-Check",
        budget=3,
    )
    # Addresses are kept in their canonical form, with the email form beside them.
    assert full["to"] == "builder@ModelRouter"
    assert full["to_email"] == f"builder+ModelRouter@{D}"
    assert (full["cc"], full["cc_email"]) == (["alice@"], [f"alice@{D}"])
    assert full["subject"] == "Add a health check"
    assert (full["session_alias"], full["budget"]) == ("health-check", 3)
    assert full["body_preview"] == "Need Add /health."  # plain text, as lists show it

    # Newest first; bodies only on request, or when reading one draft.
    drafts = await listed(jianf)
    assert [d["draft_id"] for d in drafts] == [full["draft_id"], empty["draft_id"]]
    assert drafts[0]["body"] is None and drafts[0]["body_preview"]
    assert (await listed(jianf, include_body="true"))[0]["body"] == full["body"]
    page = ok(await jianf.get(DRAFTS, params={"limit": 1, "offset": 1}))
    assert [d["draft_id"] for d in page["drafts"]] == [empty["draft_id"]]
    assert page["total"] == 2
    assert ok(await jianf.get(f"{DRAFTS}/{full['draft_id']}")) == full

    # PUT replaces every field; saving moves the draft to the top.
    replaced = ok(
        await jianf.put(
            f"{DRAFTS}/{empty['draft_id']}",
            json={"to": "builder@", "subject": "later", "budget": "unlimited"},
        )
    )
    assert replaced["draft_id"] == empty["draft_id"]
    assert (replaced["to"], replaced["budget"], replaced["cc"]) == ("builder@", "unlimited", [])
    assert replaced["created_at"] == empty["created_at"]
    assert replaced["updated_at"] > empty["updated_at"]
    assert [d["draft_id"] for d in await listed(jianf)] == [empty["draft_id"], full["draft_id"]]
    cleared = ok(await jianf.put(f"{DRAFTS}/{full['draft_id']}", json={"body": "just text"}))
    assert (cleared["to"], cleared["subject"], cleared["session_alias"]) == (None, "", None)
    assert cleared["budget"] is None and cleared["body"] == "just text"

    deleted = ok(await jianf.delete(f"{DRAFTS}/{full['draft_id']}"))
    assert deleted == {"draft_id": full["draft_id"], "status": "deleted"}
    refused(await jianf.get(f"{DRAFTS}/{full['draft_id']}"), 404, "not_found")
    refused(await jianf.delete(f"{DRAFTS}/{full['draft_id']}"), 404, "not_found")
    assert [d["draft_id"] for d in await listed(jianf)] == [empty["draft_id"]]


async def test_addresses_must_parse_but_need_not_be_deliverable(api: Api) -> None:
    jianf = await api.human("jianf")

    # Nobody is called `nobody` and `pi` has no workspace yet: fine while drafting.
    draft = await save(jianf, to="nobody@", cc=["pi@root.fix-leak"], reply_to="no-such-mail")
    assert (draft["to"], draft["cc"]) == ("nobody@", ["pi@root.fix-leak"])

    for bad in (
        {"to": "no at sign"},
        {"to": "a b@root"},
        {"cc": ["builder@", "-bad@"]},
        {"to": f"builder+a+b+c@{D}"},
        {"session_alias": "new"},
        {"session_alias": "not valid!"},
    ):
        refused(await jianf.post(DRAFTS, json=bad), 422, "invalid_address")
        url = f"{DRAFTS}/{draft['draft_id']}"
        refused(await jianf.put(url, json=bad), 422, "invalid_address")
    for bad in (
        {"subject": "two\nlines"},
        {"budget": 0},
        {"budget": "lots"},
        {"cc": [f"x{n}@" for n in range(51)]},
        {"cc": "builder@"},
        {"to": 42},
    ):
        refused(await jianf.post(DRAFTS, json=bad), 422, "invalid_request")
    # Refused saves changed nothing.
    assert ok(await jianf.get(f"{DRAFTS}/{draft['draft_id']}")) == draft
    assert len(await listed(jianf)) == 1


async def test_only_the_owner_sees_their_drafts(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    draft = await save(jianf, to="builder@", subject="mine")
    url = f"{DRAFTS}/{draft['draft_id']}"

    assert await listed(alice) == []
    refused(await alice.get(url), 404, "not_found")
    refused(await alice.put(url, json={"subject": "hijacked"}), 404, "not_found")
    refused(await alice.post(f"{url}/send"), 404, "not_found")
    refused(await alice.delete(url), 404, "not_found")
    refused(await jianf.get(f"{DRAFTS}/does-not-exist"), 404, "not_found")
    # Agents have no drafts; nobody unauthenticated does either.
    refused(await builder.get(DRAFTS), 403, "forbidden")
    refused(await builder.post(DRAFTS, json={}), 403, "forbidden")
    refused(await api.client().get(DRAFTS), 401, "unauthorized")
    # A user key is as good as the web login.
    with_key = api.client(await api.user_key(jianf))
    assert ok(await with_key.get(url))["subject"] == "mine"
    assert ok(await jianf.get(url))["subject"] == "mine"


async def test_sending_delivers_the_mail_and_removes_the_draft(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])
    draft = await save(
        jianf,
        to="builder@ModelRouter",
        cc=["alice@"],
        subject="Add a health check",
        body="## Need\n\nAdd `/health`.",
        session_alias="add-health-check",
        budget=3,
    )

    async with open_stream(builder) as agent_stream, open_stream(alice) as cc_stream:
        sent = ok(await jianf.post(f"{DRAFTS}/{draft['draft_id']}/send"))
        assert sent["session_alias"] == "add-health-check"
        assert (sent["budget_limit"], sent["budget_used"]) == (3, 0)
        for stream in (agent_stream, cc_stream):
            pushed = (await stream.next_of("new_mail")).json
            assert pushed["mail_id"] == sent["mail_id"]
            assert pushed["from"] == "jianf@.add-health-check"
            assert pushed["to"] == "builder@ModelRouter.add-health-check"
            assert pushed["cc"] == ["alice@.add-health-check"]
            assert pushed["subject"] == "Add a health check"

    refused(await jianf.get(f"{DRAFTS}/{draft['draft_id']}"), 404, "not_found")
    assert await listed(jianf) == []
    refused(await jianf.post(f"{DRAFTS}/{draft['draft_id']}/send"), 404, "not_found")
    mail = ok(await builder.get(f"/api/v1/mail/{sent['mail_id']}"))
    assert mail["body"] == "## Need\n\nAdd `/health`."
    assert mail["delivery"] == "to"
    [in_sent] = ok(await jianf.get("/api/v1/me/mail/sent"))["mails"]
    assert in_sent["mail_id"] == sent["mail_id"]

    # A draft that answers a mail lands in that mail's conversation.
    reply = ok(
        await builder.post(
            "/api/v1/mail/send", json={"to": "jianf@", "subject": "done?", "body": "Which port?"}
        )
    )
    answer = await save(jianf, to="builder@ModelRouter", reply_to=reply["mail_id"], body="8080")
    answered = ok(await jianf.post(f"{DRAFTS}/{answer['draft_id']}/send"))
    assert answered["session_id"] == reply["session_id"]
    parent = ok(await builder.get(f"/api/v1/mail/{answered['mail_id']}"))["parent_mail_id"]
    assert parent == reply["mail_id"]


async def test_a_refused_send_keeps_the_draft_with_the_same_error_as_send(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])
    cases = [
        ({"to": "nobody@"}, 422, "unknown_recipient"),
        ({"to": "builder@Elsewhere"}, 422, "unknown_workspace"),
        ({"to": "builder@ModelRouter.no-such-alias"}, 422, "unknown_alias"),
        ({"to": "builder@", "cc": ["ghost@"]}, 422, "unknown_recipient"),
        ({"to": "builder@", "reply_to": "no-such-mail"}, 404, "not_found"),
        ({"to": "jianf@root"}, 422, "invalid_address"),
    ]
    for fields, status, code in cases:
        draft = await save(jianf, subject="try", **fields)
        url = f"{DRAFTS}/{draft['draft_id']}"
        message = refused(await jianf.post(f"{url}/send"), status, code)
        direct = await jianf.post("/api/v1/me/mail/send", json={"subject": "try", **fields})
        assert refused(direct, status, code) == message
        assert ok(await jianf.get(url)) == draft

    # No recipient yet: nothing to send, and the draft stays.
    draft = await save(jianf, subject="unfinished")
    url = f"{DRAFTS}/{draft['draft_id']}"
    assert "to" in refused(await jianf.post(f"{url}/send"), 422, "invalid_request")
    ok(await jianf.put(url, json={"to": "builder@", "subject": "finished"}))
    ok(await jianf.post(f"{url}/send"))
    refused(await jianf.get(url), 404, "not_found")
    assert ok(await jianf.get("/api/v1/me/mail/sent"))["total"] == 1


async def test_a_draft_is_sent_once_even_when_sent_twice_at_once(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.agent("builder")
    drafts = [await save(jianf, to="builder@", subject=f"d{n}") for n in range(3)]

    urls = [f"{DRAFTS}/{d['draft_id']}/send" for d in drafts for _ in range(3)]
    responses = await asyncio.gather(*(jianf.post(url) for url in urls))
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * 3 + [404] * 6, [r.text for r in responses]
    assert ok(await jianf.get("/api/v1/me/mail/sent"))["total"] == 3
    assert await listed(jianf) == []

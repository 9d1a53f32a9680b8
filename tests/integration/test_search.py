"""Search over REST on both databases: words, filters, paging, and never another's mail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway import Api, running_gateway
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused

HUMAN_SEARCH = "/api/v1/me/search"
AGENT_SEARCH = "/api/v1/search"


async def send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(url, json={"to": to, **body}))


async def found(client: httpx.AsyncClient, q: str, url: str = HUMAN_SEARCH, **params: Any) -> Any:
    return ok(await client.get(url, params={"q": q, **params}))


def subjects(page: dict[str, Any]) -> list[str]:
    return [m["subject"] for m in page["mails"]]


async def test_words_paths_chinese_and_the_participant_rule(api: Api) -> None:
    jianf = await api.human("jianf")
    ada = await api.human("ada")
    builder = await api.agent("builder")
    await api.agent("tester")
    deploy = await send(
        jianf,
        HUMAN_SEND,
        "builder@ModelRouter",
        subject="Deploy plan",
        body="Please deploy to /srv/app/releases tonight.\n用户登录 fails after the upgrade.",
        session_alias="deploy-plan",
    )
    await send(jianf, HUMAN_SEND, "builder@ModelRouter", subject="Lunch", body="pizza or sushi?")
    # Ada's conversation with tester: jianf is in none of it.
    await send(ada, HUMAN_SEND, "tester@ModelRouter", subject="Private", body="deploy secretword")

    page = await found(jianf, "upgrade")
    assert subjects(page) == ["Deploy plan"] and page["total"] == 1
    hit = page["mails"][0]
    assert hit["mail_id"] == deploy["mail_id"] and hit["from"] and hit["status"] is None
    assert "upgrade" in hit["snippet"] and hit["body"] is None  # the inbox's list shape
    assert subjects(await found(jianf, "登录")) == ["Deploy plan"]
    assert subjects(await found(jianf, "/srv/app")) == ["Deploy plan"]
    assert subjects(await found(jianf, '"deploy to /srv"')) == ["Deploy plan"]
    assert subjects(await found(jianf, "DEPLOY")) == ["Deploy plan"]  # not Ada's
    assert (await found(jianf, "secretword"))["total"] == 0
    assert (await found(jianf, "from:ada"))["total"] == 0
    assert subjects(await found(ada, "secretword")) == ["Private"]
    # Short words (under a trigram) still match, by LIKE.
    assert subjects(await found(jianf, "or")) == ["Lunch"]
    assert subjects(await found(jianf, "登录 pl")) == ["Deploy plan"]

    # The recipient finds it as well, through the agents' endpoint.
    page = await found(builder, "/srv/app", AGENT_SEARCH)
    assert subjects(page) == ["Deploy plan"] and page["mails"][0]["status"] == "unread"
    assert (await found(builder, "secretword", AGENT_SEARCH))["total"] == 0
    refused(await builder.get(HUMAN_SEARCH, params={"q": "x"}), 403, "forbidden")
    refused(await jianf.get(AGENT_SEARCH, params={"q": "x"}), 403, "forbidden")


async def test_filters_ranking_and_paging(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = await send(
        jianf, HUMAN_SEND, "builder@ModelRouter", subject="task", session_alias="nightly"
    )
    for n in range(5):
        await send(
            builder,
            AGENT_SEND,
            "jianf@",
            subject=f"report {n}",
            body=f"build {n} finished",
            reply_to=task["mail_id"],
        )
    await send(
        builder, AGENT_SEND, "jianf@", subject="finished?", body="a question", mail_type="question"
    )
    asked = await builder.post(
        "/api/v1/permission/request",
        json={"to": "jianf@", "question": "May I build the release?", "options": ["yes", "no"]},
    )
    ok(asked)

    page = await found(jianf, "finished")
    # Best match first (the subject weighs most), then newest first.
    assert subjects(page)[0] == "finished?" and page["total"] == 6
    page = await found(jianf, "finished alias:nightly", limit=2, offset=1)
    assert subjects(page) == ["report 3", "report 2"] and page["total"] == 5
    assert subjects(await found(jianf, "from:builder alias:nightly")) == [
        f"report {n}" for n in (4, 3, 2, 1, 0)
    ]
    assert (await found(jianf, "from:jianf"))["total"] == 1
    assert (await found(jianf, "to:builder"))["total"] == 1
    assert subjects(await found(jianf, "type:question")) == ["finished?"]
    assert [m["mail_type"] for m in (await found(jianf, "type:permission"))["mails"]] == [
        "permission_request"
    ]
    mails = (await found(jianf, "from:builder alias:nightly"))["mails"]
    ok(await jianf.post(f"/api/v1/me/mail/{mails[0]['mail_id']}/read"))
    assert (await found(jianf, "alias:nightly is:unread"))["total"] == 4
    assert subjects(await found(jianf, "alias:nightly is:read")) == ["report 4"]
    assert (await found(jianf, "has:attachment"))["total"] == 0
    upload = ok(await jianf.post("/api/v1/me/attachments", files={"file": ("a.txt", b"x")}))
    await send(
        jianf,
        HUMAN_SEND,
        "builder@ModelRouter",
        subject="file",
        attachment_ids=[upload["attachment_id"]],
    )
    assert subjects(await found(jianf, "has:attachment")) == ["file"]

    # Paging: a stable order, newest first among equals (filters rank nothing).
    everything = subjects(await found(jianf, "alias:nightly", limit=100))
    pages = [subjects(await found(jianf, "alias:nightly", limit=2, offset=o)) for o in (0, 2, 4)]
    assert [s for page in pages for s in page] == everything and len(everything) == 6
    assert (await found(jianf, "alias:nightly", offset=50))["mails"] == []

    for bad in ({"q": "is:maybe"}, {"q": "type:spam"}, {"q": "x" * 501}, {"limit": 101}):
        response = await jianf.get(HUMAN_SEARCH, params=bad)
        assert response.status_code == 422, (bad, response.text)
    message = refused(await jianf.get(HUMAN_SEARCH, params={"q": "is:x"}), 422, "invalid_request")
    assert "is:unread" in message


async def test_beyond_the_count_cap_newest_first_and_total_is_a_lower_bound(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(database_url, tmp_path / "d", search_count_cap=3) as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            await api.agent("builder")
            for n, body in enumerate(["alpha", "alpha alpha alpha", "alpha", "alpha x"]):
                await send(jianf, HUMAN_SEND, "builder@ModelRouter", subject=f"a{n}", body=body)
            page = await found(jianf, "alpha")
            assert (page["total"], page["total_exact"]) == (3, False)
            assert subjects(page) == ["a3", "a2", "a1", "a0"]  # newest first, not ranked
            assert subjects(await found(jianf, "alpha", limit=2, offset=2)) == ["a1", "a0"]
            page = await found(jianf, "alpha x")
            assert (page["total"], page["total_exact"], subjects(page)) == (1, True, ["a3"])
        finally:
            await api.close()

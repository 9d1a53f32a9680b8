"""GET /addresses/check: the verdict a send would give, without sending (both databases)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused

CHECK = "/api/v1/addresses/check"
HUMAN_CHECK = "/api/v1/me/addresses/check"


async def check(client: httpx.AsyncClient, address: str, url: str = CHECK) -> Any:
    return ok(await client.get(url, params={"address": address}))


async def test_deliverable_addresses_and_the_errors_a_send_gives(api: Api) -> None:
    jianf = await api.human("jianf")
    ada = await api.human("ada")
    builder = await api.agent("builder")
    await api.agent("tester")
    domain = api.gateway.settings.domain

    assert await check(jianf, "builder@ModelRouter") == {
        "address": "builder@ModelRouter",
        "deliverable": True,
        "native": "builder@ModelRouter",
        "email": f"builder+ModelRouter@{domain}",
        "kind": "agent",
        "error": None,
        # No mail yet: the first one makes the default conversation.
        "reaches": {"by": "default", "conversation": None},
    }
    found = await check(jianf, f"builder+ModelRouter@{domain}", HUMAN_CHECK)
    assert (found["deliverable"], found["native"]) == (True, "builder@ModelRouter")
    found = await check(builder, "ada@")
    assert (found["deliverable"], found["kind"], found["email"]) == (True, "human", f"ada@{domain}")

    # Ada's named conversation with tester: to jianf its alias does not exist.
    ok(
        await ada.post(
            HUMAN_SEND,
            json={"to": "tester@ModelRouter", "subject": "s", "session_alias": "secret-plan"},
        )
    )
    assert (await check(ada, "tester@ModelRouter.secret-plan"))["deliverable"] is True
    for address, code in (
        ("tester@ModelRouter.secret-plan", "unknown_alias"),
        ("nobody@", "unknown_recipient"),
        ("builder@Elsewhere", "unknown_workspace"),
        ("builder@other.example", None),
        ("", None),
    ):
        found = await check(jianf, address)
        assert found["deliverable"] is False and found["kind"] is None, found
        assert found["reaches"] is None
        sent = await jianf.post(HUMAN_SEND, json={"to": address, "subject": "s"})
        assert sent.status_code >= 400, sent.text
        if code is not None:
            assert found["error"]["code"] == code
        # The same code and message as the send the UI is about to make.
        assert found["error"] == sent.json()["error"], (address, sent.text)
    refused(await builder.get(HUMAN_CHECK, params={"address": "ada@"}), 403, "forbidden")
    response = await jianf.get(CHECK, params={"address": "x" * 1201})
    assert response.status_code == 422


async def test_an_agent_whose_budget_is_used_up_is_told_before_sending(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(
        await jianf.post(
            HUMAN_SEND,
            json={
                "to": "builder@ModelRouter",
                "subject": "t",
                "session_alias": "tiny",
                "budget": 1,
            },
        )
    )
    assert (await check(builder, "jianf@.tiny"))["deliverable"] is True
    ok(await builder.post(AGENT_SEND, json={"to": "jianf@.tiny", "reply_to": task["mail_id"]}))
    found = await check(builder, "jianf@.tiny")
    assert found["deliverable"] is False and found["error"]["code"] == "budget_exhausted"
    sent = await builder.post(AGENT_SEND, json={"to": "jianf@.tiny", "body": "more"})
    assert found["error"] == sent.json()["error"]

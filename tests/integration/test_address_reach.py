"""GET /addresses/check's `reaches`: the conversation a send would join, said before
sending, and then the send joins exactly that one (both databases)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

CHECK = "/api/v1/me/addresses/check"


async def reaches(
    client: httpx.AsyncClient, address: str, reply_to: str | None = None, url: str = CHECK
) -> Any:
    params = {"address": address} | ({"reply_to": reply_to} if reply_to else {})
    found = ok(await client.get(url, params=params))
    assert found["deliverable"] is True, found
    return found["reaches"]


async def send(client: httpx.AsyncClient, url: str = HUMAN_SEND, **body: Any) -> dict[str, Any]:
    return ok(await client.post(url, json={"body": "b", **body}))


async def test_the_default_conversation_is_named_before_a_send_continues_it(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.agent("builder")

    assert await reaches(jianf, "builder@ModelRouter") == {"by": "default", "conversation": None}
    first = await send(jianf, to="builder@ModelRouter", subject="Fix the leak")

    reached = await reaches(jianf, "builder@ModelRouter")
    assert reached == {
        "by": "default",
        "conversation": {
            "session_id": first["session_id"],
            "session_alias": first["session_alias"],
            "subject": "Fix the leak",
            "status": "active",
            "budget_limit": 20,
            "budget_used": 0,
            "budget_remaining": 20,
        },
    }
    # A different subject changes nothing: the address names the default conversation.
    second = await send(jianf, to="builder@ModelRouter", subject="Another task")
    assert second["session_id"] == first["session_id"]


async def test_new_alias_and_reply_say_where_the_send_goes(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    await send(jianf, to="builder@ModelRouter", subject="Default one")

    assert await reaches(jianf, "builder@ModelRouter.new") == {"by": "new", "conversation": None}
    task = await send(
        jianf, to="builder@ModelRouter.new", subject="Audit", session_alias="audit", budget=6
    )
    assert task["session_alias"] == "audit"

    # The agent answers (a round): the budget the check shows counts it.
    await send(
        builder, AGENT_SEND, to="jianf@.audit", subject="Re: Audit", reply_to=task["mail_id"]
    )
    reached = await reaches(jianf, "builder@ModelRouter.audit")
    assert reached["by"] == "alias"
    assert reached["conversation"]["session_id"] == task["session_id"]
    assert reached["conversation"]["budget_remaining"] == 5
    assert (await reaches(builder, "jianf@.audit", url="/api/v1/addresses/check"))["conversation"][
        "budget_used"
    ] == 1

    # A reply to a mail of "audit" at the plain address goes to "audit", not the default.
    reached = await reaches(jianf, "builder@ModelRouter", reply_to=task["mail_id"])
    assert (reached["by"], reached["conversation"]["session_alias"]) == ("reply", "audit")
    answer = await send(
        jianf, to="builder@ModelRouter", subject="Re: Audit", reply_to=task["mail_id"]
    )
    assert answer["session_id"] == task["session_id"]
    # `.new` wins over the reply, as on send.
    reached = await reaches(jianf, "builder@ModelRouter.new", reply_to=task["mail_id"])
    assert reached == {"by": "new", "conversation": None}


async def test_nothing_is_said_about_someone_elses_conversation(api: Api) -> None:
    jianf = await api.human("jianf")
    ada = await api.human("ada")
    await api.agent("builder")
    mine = await send(jianf, to="builder@ModelRouter", subject="Private")

    # Ada's default conversation with the workspace is her own (none yet).
    assert await reaches(ada, "builder@ModelRouter") == {"by": "default", "conversation": None}
    found = ok(
        await ada.get(CHECK, params={"address": "builder@ModelRouter", "reply_to": mine["mail_id"]})
    )
    assert (found["deliverable"], found["reaches"]) == (False, None)
    # The very answer a send as that reply gets.
    refused = await ada.post(
        HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "s", "reply_to": mine["mail_id"]}
    )
    assert found["error"] == refused.json()["error"]
    assert found["error"]["code"] == "not_found"
    found = ok(
        await ada.get(CHECK, params={"address": f"builder@ModelRouter.{mine['session_alias']}"})
    )
    assert (found["error"]["code"], found["reaches"]) == ("unknown_alias", None)

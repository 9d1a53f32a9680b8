"""`session_id` on /mail/send continues a conversation (checked like an alias), and a
permission request keeps its `cc`."""

from __future__ import annotations

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok, refused

DECIDE = "/api/v1/me/permission/decide"


async def test_session_id_continues_a_conversation_the_sender_is_in(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    other = await api.agent("other", [("elsewhere", "/srv/other")])
    task = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "a task"}))

    # The seed's hooks send session_id with no alias and no reply_to.
    body = {"to": "jianf@", "subject": "progress", "session_id": task["session_id"]}
    sent = ok(await builder.post(AGENT_SEND, json=body))
    assert sent["session_id"] == task["session_id"]
    again = {"to": "builder@ModelRouter", "subject": "more", "session_id": task["session_id"]}
    assert ok(await jianf.post(HUMAN_SEND, json=again))["session_id"] == task["session_id"]

    # Someone who takes no part in it: as if it did not exist.
    outsider = {"to": "jianf@", "subject": "let me in", "session_id": task["session_id"]}
    refused(await other.post(AGENT_SEND, json=outsider), 404, "not_found")
    refused(await other.post(AGENT_SEND, json={**outsider, "session_id": "nope"}), 404, "not_found")


async def test_a_cc_on_a_permission_request_sees_it_and_may_not_decide(api: Api) -> None:
    jianf = await api.human("jianf")
    carol = await api.human("carol")
    builder = await api.agent("builder")
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "cc": ["carol@"], "question": "May I deploy?"},
        )
    )
    seen = ok(await carol.get(f"{HUMAN_MAIL}/{asked['mail_id']}"))
    assert seen["mail_type"] == "permission_request"
    assert [cc.split("@")[0] for cc in seen["cc"]] == ["carol"]
    decide = {"mail_id": asked["mail_id"], "decision": "approve"}
    refused(await carol.post(DECIDE, json=decide), 403, "forbidden")
    ok(await jianf.post(DECIDE, json=decide))

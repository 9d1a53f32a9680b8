"""Three-part addressing over REST: the HTTP mapping of what the domain decides.

The rules themselves (either form, workspaces, `.new`, aliases, cc) are tested in
process on both databases, tests/domain/test_addressing.py; this file proves that
both send endpoints and both inboxes carry them: a 200 with the views' JSON, and
each refusal as its status code and `{"error": {"code", "message"}}`.
"""

from __future__ import annotations

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused

D = "agentmail.localhost"


async def test_send_endpoints_map_addressing_to_http(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])

    sent = ok(
        await human.post(
            HUMAN_SEND, json={"to": f"builder+ModelRouter@{D}", "subject": "Fix it", "body": "b"}
        )
    )
    assert sent["session_alias"] == "fix-it"
    [received] = ok(await builder.get("/api/v1/mail/inbox"))["mails"]
    assert received["mail_id"] == sent["mail_id"]
    assert (received["from"], received["from_email"]) == ("jianf@.fix-it", f"jianf++fix-it@{D}")
    assert received["to_email"] == f"builder+ModelRouter+fix-it@{D}"
    answer = ok(await builder.post(AGENT_SEND, json={"to": "jianf@.fix-it", "subject": "done"}))
    assert answer["session_id"] == sent["session_id"]
    [shown] = ok(await human.get("/api/v1/me/mail/inbox"))["mails"]
    assert shown["from"] == "builder@ModelRouter.fix-it"

    message = refused(
        await human.post(HUMAN_SEND, json={"to": "builder@modelrouter"}), 422, "unknown_workspace"
    )
    assert "ModelRouter (/home/u/ModelRouter)" in message
    refused(await human.post(HUMAN_SEND, json={"to": "nobody@"}), 422, "unknown_recipient")
    refused(await human.post(HUMAN_SEND, json={"to": "no-at-sign"}), 422, "invalid_address")
    message = refused(
        await human.post(HUMAN_SEND, json={"to": "builder@.no-such-thing"}), 422, "unknown_alias"
    )
    assert message == "undeliverable: no conversation 'no-such-thing'"
    refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@", "from_workspace": "Elsewhere"}),
        422,
        "unknown_workspace",
    )
    refused(await builder.post(AGENT_SEND, json={"to": "jianf@x"}), 422, "invalid_address")
    refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@", "reply_to": "no-such-mail"}),
        404,
        "not_found",
    )

"""`to_workspace: {name, path}` in mail views and in `new_mail`, both
DBs: a bridge learns the addressed workspace as data and never splits an address."""

from __future__ import annotations

from typing import Any

from tests.support.gateway import Api
from tests.support.http import AGENT_MAIL, AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok
from tests.support.sse import open_stream

D = "agentmail.localhost"
WORKSPACES = (("ModelRouter", "/home/u/ModelRouter"), ("docs", "/srv/app.v2"))
DOCS = {"name": "docs", "path": "/srv/app.v2"}


async def test_every_view_of_a_mail_names_its_workspace(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", WORKSPACES)
    async with open_stream(builder) as stream:
        # By path (with the trailing dot of a dotted path), by name, in the email form.
        for to in ("builder@/srv/app.v2.", "builder@docs.new", f"builder+docs@{D}"):
            sent = ok(await human.post(HUMAN_SEND, json={"to": to, "subject": to}))
            event = await stream.next_of("new_mail")
            assert event.json["mail_id"] == sent["mail_id"]
            assert event.json["to_workspace"] == DOCS, to
            mail = ok(await builder.get(f"{AGENT_MAIL}/{sent['mail_id']}"))
            assert mail["to_workspace"] == DOCS
        first = ok(await human.post(HUMAN_SEND, json={"to": "builder@", "subject": "default"}))
        event = await stream.next_of("new_mail")
        assert event.json["to_workspace"] == {"name": "ModelRouter", "path": WORKSPACES[0][1]}

    inbox = ok(await builder.get(f"{AGENT_MAIL}/inbox"))["mails"]
    assert [m["to_workspace"]["name"] for m in inbox] == ["ModelRouter", "docs", "docs", "docs"]
    sent_list = ok(await human.get(f"{HUMAN_MAIL}/sent"))["mails"]
    assert sent_list[0]["to_workspace"]["name"] == "ModelRouter"
    session = ok(await builder.get(f"/api/v1/sessions/{first['session_id']}"))
    assert session["mails"][0]["to_workspace"]["path"] == WORKSPACES[0][1]
    tree = ok(await builder.get(f"{AGENT_MAIL}/{first['mail_id']}/tree"))
    assert tree["mails"][0]["to_workspace"]["name"] == "ModelRouter"


async def test_a_mail_to_a_human_has_no_workspace(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", WORKSPACES)
    task = ok(await human.post(HUMAN_SEND, json={"to": "builder@docs", "subject": "t"}))
    async with open_stream(human) as stream:
        reply = ok(
            await builder.post(
                AGENT_SEND, json={"to": "jianf@", "reply_to": task["mail_id"], "body": "ok"}
            )
        )
        event = await stream.next_of("new_mail")
        assert event.json["to_workspace"] is None
    mail: dict[str, Any] = ok(await human.get(f"{HUMAN_MAIL}/{reply['mail_id']}"))
    assert mail["to_workspace"] is None
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "May I?", "session_id": task["session_id"]},
        )
    )
    requests = ok(await human.get("/api/v1/me/permissions"))["mails"]
    assert [(m["mail_id"], m["to_workspace"]) for m in requests] == [(asked["mail_id"], None)]


async def test_a_removed_workspace_keeps_its_name_without_a_path(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", WORKSPACES)
    sent = ok(await human.post(HUMAN_SEND, json={"to": "builder@docs", "subject": "t"}))
    removed = await builder.delete("/api/v1/agent/workspaces/docs", params={"force": "true"})
    assert removed.status_code == 200, removed.text
    mail = ok(await builder.get(f"{AGENT_MAIL}/{sent['mail_id']}"))
    assert mail["to_workspace"] == {"name": "docs", "path": None}

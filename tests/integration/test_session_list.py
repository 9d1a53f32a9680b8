"""Conversation lists carry the newest mail and the participants, in a fixed number of
statements per page whatever its size (both databases; counted as in test_tree_statements)."""

from __future__ import annotations

from typing import Any

from core.mail import conversations
from core.principal import Principal
from tests.integration.test_tree_statements import quiet_api, statements
from tests.support.gateway import PASSWORD, Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

__all__ = ["quiet_api"]  # the fixture, imported for its name


def by_alias(listing: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["session_alias"]: s for s in listing["sessions"]}


async def test_latest_mail_and_participants_in_bounded_statements(quiet_api: Api) -> None:
    api = quiet_api
    jianf = await api.human("jianf")
    admin = await api.admin()
    # Ada exists but has never logged in: offline.
    new_user = {"name": "ada", "password": PASSWORD, "is_admin": False}
    assert (await admin.post("/api/v1/admin/users", json=new_user)).status_code == 201
    builder = await api.agent("builder")
    first = ok(
        await jianf.post(
            HUMAN_SEND,
            json={
                "to": "builder@ModelRouter",
                "cc": ["ada@"],
                "subject": "c0",
                "session_alias": "c0",
            },
        )
    )
    reply_body = "  Done:\n\n  the build   passes.\n" + "x" * 300
    reply = ok(
        await builder.post(
            AGENT_SEND, json={"to": "jianf@", "body": reply_body, "reply_to": first["mail_id"]}
        )
    )
    for n in range(1, 9):
        ok(
            await jianf.post(
                HUMAN_SEND,
                json={"to": "builder@ModelRouter", "subject": f"c{n}", "session_alias": f"c{n}"},
            )
        )

    listing = ok(await jianf.get("/api/v1/me/sessions", params={"limit": 20}))
    c0 = by_alias(listing)["c0"]
    assert c0["participants"] == ["ada", "builder", "jianf"]  # the old field stays
    assert c0["mail_count"] == 2
    assert c0["participant_details"] == [
        {"name": "ada", "kind": "human", "online": False},
        {"name": "builder", "kind": "agent", "online": True},
        {"name": "jianf", "kind": "human", "online": True},
    ]
    latest = c0["latest"]
    assert latest["mail_id"] == reply["mail_id"]
    assert latest["from"].startswith("builder@ModelRouter")
    assert latest["excerpt"].startswith("Done: the build passes. xxx")
    assert len(latest["excerpt"]) == 140 and latest["excerpt"].endswith("…")
    c5 = by_alias(listing)["c5"]
    assert (c5["latest"]["from"], c5["latest"]["excerpt"], c5["mail_count"]) == ("jianf@.c5", "", 1)
    # The agent's own list, through /sessions.
    mine = by_alias(ok(await builder.get("/api/v1/sessions", params={"limit": 20})))
    assert mine["c0"]["latest"]["mail_id"] == reply["mail_id"]
    assert mine["c3"]["latest"]["from"] == "jianf@.c3"

    store = api.gateway.store
    assert store is not None
    counts = []
    for who in (Principal(kind="human", name="jianf"), Principal(kind="agent", name="builder")):
        for limit in (1, 3, 9):
            with statements(store) as seen:
                views, total = await conversations.list_conversations(store, who, None, limit, 0)
            assert (len(views), total) == (limit, 9)
            counts.append(len(seen))
    assert len(set(counts)) == 1, counts
    assert counts[0] <= 8, counts

"""Addressing helpers: suggestions, contacts, participants."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import ok

D = "agentmail.localhost"
SUGGEST = "/api/v1/addresses/suggest"


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


async def suggest(client: httpx.AsyncClient, q: str, path: str = SUGGEST, **params: Any) -> Any:
    return ok(await client.get(path, params={"q": q, **params}))["candidates"]


async def addresses(client: httpx.AsyncClient, q: str, **params: Any) -> list[str]:
    return [c["address"] for c in await suggest(client, q, **params)]


async def send(client: httpx.AsyncClient, to: str, *, human: bool = True, **body: Any) -> Any:
    path = "/api/v1/me/mail/send" if human else "/api/v1/mail/send"
    body.setdefault("subject", f"to {to}")
    return ok(await client.post(path, json={"to": to, "body": "hello", **body}))


async def test_suggests_agents_workspaces_and_humans_by_prefix_then_substring(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.human("jim")
    builder = await api.agent(
        "builder", [("ModelRouter", "/home/u/ModelRouter"), ("docs", "/srv/docs")], "opencode"
    )
    await api.agent("buildbot", [("ci", "")])
    await api.agent("rebuilder", [("main", "/srv/main")])

    # Prefix matches first (by address), then substring matches.
    assert await addresses(jianf, "bui") == [
        "buildbot@ci",
        "builder@docs",
        "builder@ModelRouter",
        "rebuilder@main",
    ]
    assert await addresses(jianf, "BUI", limit=2) == ["buildbot@ci", "builder@docs"]
    assert await addresses(jianf, "builder@") == [
        "builder@docs",
        "builder@ModelRouter",
        "rebuilder@main",
    ]
    assert await addresses(jianf, "builder@Mod") == ["builder@ModelRouter"]
    assert await addresses(jianf, "builder@modelrouter") == ["builder@ModelRouter"]
    # A workspace is found by its path too, and the email form works as well.
    assert await addresses(jianf, "builder@/srv") == ["builder@docs", "rebuilder@main"]
    assert await addresses(jianf, "builder@/home") == ["builder@ModelRouter"]
    assert await addresses(jianf, "builder+Model") == ["builder@ModelRouter"]
    assert await addresses(jianf, f"jim@{D}") == ["jim@"]
    assert await addresses(jianf, "no-such-thing") == []

    [candidate] = await suggest(builder, "builder@Mod")
    assert candidate == {
        "address": "builder@ModelRouter",
        "email": f"builder+ModelRouter@{D}",
        "kind": "agent",
        "description": "workspace ModelRouter at /home/u/ModelRouter · opencode · online",
        "session_id": None,
    }
    [candidate] = await suggest(jianf, "buildbot@")
    assert candidate["description"] == "workspace ci · test · online"
    humans = await suggest(jianf, "ji")
    assert [(c["address"], c["email"], c["kind"]) for c in humans] == [
        ("jianf@", f"jianf@{D}", "human"),
        ("jim@", f"jim@{D}", "human"),
    ]
    # The same under /me for humans; agents may not use /me.
    assert await addresses(jianf, "jianf@", path="/api/v1/me/addresses/suggest") == ["jianf@"]
    refused(await builder.get("/api/v1/me/addresses/suggest", params={"q": "x"}), 403, "forbidden")
    refused(await api.client().get(SUGGEST, params={"q": "x"}), 401, "unauthorized")
    refused(await jianf.get(SUGGEST, params={"q": "x", "limit": 0}), 422, "invalid_request")


async def test_suggests_only_the_callers_own_live_aliases(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter"), ("docs", "")])
    await api.agent("reviewer", [("main", ""), ("repo", "/srv/repo")])

    auth = await send(jianf, "builder@ModelRouter", session_alias="add-auth", subject="Auth")
    cache = await send(jianf, "builder@ModelRouter", session_alias="add-cache", subject="Cache")
    await send(alice, "builder@ModelRouter", session_alias="add-secret", subject="Secret")
    await send(jianf, "builder@docs", session_alias="docs-fix", cc=["reviewer@repo"])
    await send(jianf, "builder@ModelRouter", session_alias="old-name")
    renamed = await send(jianf, "builder@", session_alias="before")
    ok(
        await jianf.patch(
            f"/api/v1/sessions/{renamed['session_id']}", json={"session_alias": "after"}
        )
    )

    # Most recently active conversation first; never another person's alias.
    found = await suggest(jianf, "builder@ModelRouter.add")
    assert [(c["address"], c["kind"], c["session_id"]) for c in found] == [
        ("builder@ModelRouter.add-cache", "conversation", cache["session_id"]),
        ("builder@ModelRouter.add-auth", "conversation", auth["session_id"]),
    ]
    assert found[0]["email"] == f"builder+ModelRouter+add-cache@{D}"
    assert found[0]["description"] == "Cache (active)"
    assert await addresses(alice, "add") == ["builder@ModelRouter.add-secret"]
    assert await addresses(jianf, "secret") == []
    # Each participant at the workspace used in that conversation; a cc'd agent too.
    assert await addresses(jianf, "docs-fix") == ["builder@docs.docs-fix", "reviewer@repo.docs-fix"]
    assert await addresses(jianf, "before") == []
    assert await addresses(jianf, "builder@ModelRouter.aft") == ["builder@ModelRouter.after"]
    # The agent sees the humans it works with, at their aliases.
    assert await addresses(builder, ".add-") == [
        "alice@.add-secret",
        "jianf@.add-cache",
        "jianf@.add-auth",
    ]
    # A bare workspace prefix lists the workspaces first, then its conversations.
    listed = await addresses(jianf, "builder@Model", limit=3)
    assert listed == [
        "builder@ModelRouter",
        "builder@ModelRouter.after",
        "builder@ModelRouter.old-name",
    ]


async def test_contacts_are_ordered_by_last_interaction(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    await api.human("stranger")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter"), ("docs", "")])
    reviewer = await api.agent("reviewer", [("main", ""), ("repo", "/srv/repo")])

    assert ok(await jianf.get("/api/v1/contacts")) == {"contacts": [], "total": 0}
    await send(jianf, "builder@ModelRouter", subject="one")
    await send(jianf, "alice@")
    await send(jianf, "builder@docs", session_alias="two", cc=["reviewer@repo"])
    await send(alice, "jianf@")

    contacts = ok(await jianf.get("/api/v1/contacts"))
    assert contacts["total"] == 3
    by_name = {c["name"]: c for c in contacts["contacts"]}
    # builder and reviewer were last in the same mail: by name.
    assert [c["name"] for c in contacts["contacts"]] == ["alice", "builder", "reviewer"]
    assert by_name["builder"] == {
        "name": "builder",
        "kind": "agent",
        # The workspace last used with jianf.
        "address": "builder@docs",
        "email": f"builder+docs@{D}",
        "addresses": ["builder@ModelRouter", "builder@docs"],
        "status": "online",
        "last_interaction": by_name["builder"]["last_interaction"],
        "shared_sessions": 2,
    }
    assert by_name["alice"]["kind"] == "human"
    assert (by_name["alice"]["address"], by_name["alice"]["addresses"]) == ("alice@", ["alice@"])
    assert by_name["alice"]["status"] is None and by_name["alice"]["shared_sessions"] == 1
    assert by_name["reviewer"]["address"] == "reviewer@repo"
    assert by_name["alice"]["last_interaction"] > by_name["builder"]["last_interaction"]

    # A reply moves its sender to the top.
    await send(builder, "jianf@", human=False, from_workspace="ModelRouter")
    me_contacts = ok(await jianf.get("/api/v1/me/contacts", params={"limit": 2}))
    assert me_contacts["total"] == 3
    assert [c["name"] for c in me_contacts["contacts"]] == ["builder", "alice"]
    assert me_contacts["contacts"][0]["address"] == "builder@ModelRouter"
    page = ok(await jianf.get("/api/v1/contacts", params={"limit": 2, "offset": 2}))
    assert page["total"] == 3
    assert [c["name"] for c in page["contacts"]] == ["reviewer"]

    # Agents have contacts too; a cc'd agent knows everyone in that mail.
    theirs = ok(await reviewer.get("/api/v1/contacts"))["contacts"]
    assert [(c["name"], c["address"], c["shared_sessions"]) for c in theirs] == [
        ("builder", "builder@docs", 1),
        ("jianf", "jianf@", 1),
    ]
    assert theirs[0]["last_interaction"] == theirs[1]["last_interaction"]
    assert [c["name"] for c in ok(await alice.get("/api/v1/contacts"))["contacts"]] == ["jianf"]
    refused(await builder.get("/api/v1/me/contacts"), 403, "forbidden")


async def test_participants_with_their_session_addresses(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter"), ("docs", "")])
    await api.agent("reviewer", [("main", ""), ("repo", "/srv/repo")])

    named = await send(jianf, "builder@docs", session_alias="docs-fix", cc=["reviewer@repo"])
    url = f"/api/v1/sessions/{named['session_id']}/participants"
    body = ok(await jianf.get(url))
    assert (body["session_id"], body["session_alias"]) == (named["session_id"], "docs-fix")
    assert body["participants"] == [
        {
            "name": "builder",
            "kind": "agent",
            "workspace": "docs",
            "address": "builder@docs.docs-fix",
            "email": f"builder+docs+docs-fix@{D}",
            "status": "online",
        },
        {
            "name": "jianf",
            "kind": "human",
            "workspace": "",
            "address": "jianf@.docs-fix",
            "email": f"jianf++docs-fix@{D}",
            "status": None,
        },
        {
            "name": "reviewer",
            "kind": "agent",
            "workspace": "repo",
            "address": "reviewer@repo.docs-fix",
            "email": f"reviewer+repo+docs-fix@{D}",
            "status": "online",
        },
    ]
    assert ok(await builder.get(url)) == body
    assert ok(await jianf.get(f"/api/v1/me/sessions/{named['session_id']}/participants")) == body

    # Not a participant, or no such conversation: 404 either way.
    refused(await alice.get(url), 404, "not_found")
    refused(
        await alice.get(f"/api/v1/me/sessions/{named['session_id']}/participants"), 404, "not_found"
    )
    refused(await jianf.get("/api/v1/sessions/nope/participants"), 404, "not_found")
    refused(
        await builder.get(f"/api/v1/me/sessions/{named['session_id']}/participants"),
        403,
        "forbidden",
    )

    # Without an alias (a subject that slugs to nothing) the addresses have no session part.
    plain = await send(builder, "alice@", human=False, from_workspace="ModelRouter", subject="?!")
    listed = ok(await alice.get(f"/api/v1/sessions/{plain['session_id']}/participants"))
    assert [p["address"] for p in listed["participants"]] == ["alice@", "builder@ModelRouter"]

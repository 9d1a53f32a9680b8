"""Re-registration adds and updates workspaces, never drops one; removing is explicit;
no name or path names two workspaces."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import ok, refused

REGISTER = "/api/v1/agent/register"
WORKSPACES = "/api/v1/agent/workspaces"
SEND = "/api/v1/me/mail/send"


def _register(*workspaces: tuple[str, str]) -> dict[str, Any]:
    return {
        "name": "builder",
        "workspaces": [{"name": n, "path": p} for n, p in workspaces],
        "platform": "test",
    }


def _workspaces(registered: dict[str, Any]) -> list[tuple[str, str]]:
    return [(ws["name"], ws["path"]) for ws in registered["agent"]["workspaces"]]


async def _task(human: httpx.AsyncClient, to: str) -> dict[str, Any]:
    return ok(await human.post("/api/v1/me/mail/send", json={"to": to, "subject": "a task"}))


async def test_registering_again_adds_and_updates_and_keeps_the_rest(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", (("a", "/srv/a"), ("b", "/srv/b")))
    in_b = await _task(human, "builder@b")

    again = ok(await builder.post(REGISTER, json=_register(("a", "/srv/a2"), ("c", "/srv/c"))))
    assert _workspaces(again) == [("a", "/srv/a2"), ("b", "/srv/b"), ("c", "/srv/c")]
    # The conversation of the workspace left out stays deliverable, by name and by path.
    for to in ("builder@b", "builder@/srv/b"):
        assert (await _task(human, to))["session_id"] == in_b["session_id"]
    by_new_path = await _task(human, "builder@/srv/a2")
    shown = ok(await human.get(f"/api/v1/me/mail/{by_new_path['mail_id']}"))
    assert shown["to"].startswith("builder@a")
    refused(await human.post(SEND, json={"to": "builder@/srv/a"}), 422, "unknown_workspace")


async def test_no_name_or_path_names_two_workspaces(api: Api) -> None:
    builder = await api.agent("builder", (("a", "/srv/a"),))
    clashes = [
        (("x", "/srv/x"), ("x", "/srv/y")),  # the same name twice
        (("x", "/srv/same"), ("y", "/srv/same")),  # the same path twice
        (("x", "/srv/x"), ("y", "x")),  # a path that is another's name
        (("y", "/srv/a"),),  # a new workspace with a known one's path
    ]
    for clash in clashes:
        message = refused(
            await builder.post(REGISTER, json=_register(*clash)), 409, "workspace_conflict"
        )
        assert "two workspaces" in message, clash
    shown = ok(await builder.get("/api/v1/agents"))["agents"]
    assert [ws["name"] for ws in shown[0]["workspaces"]] == ["a"]  # nothing changed


async def test_removing_a_workspace_is_explicit(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", (("a", "/srv/a"), ("b", "/srv/b")))
    in_b = await _task(human, "builder@b")

    message = refused(await builder.delete(f"{WORKSPACES}/b"), 409, "workspace_conflict")
    assert "1 open conversation" in message
    refused(await builder.delete(f"{WORKSPACES}/nope"), 404, "not_found")
    ok(await human.patch(f"/api/v1/me/sessions/{in_b['session_id']}", json={"status": "completed"}))
    removed = ok(await builder.delete(f"{WORKSPACES}/b"))
    assert [ws["name"] for ws in removed["workspaces"]] == ["a"]
    refused(await human.post(SEND, json={"to": "builder@b"}), 422, "unknown_workspace")
    last = refused(await builder.delete(f"{WORKSPACES}/a"), 409, "workspace_conflict")
    assert "at least one" in last


async def test_force_removes_a_busy_workspace(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", (("a", "/srv/a"), ("b", "/srv/b")))
    await _task(human, "builder@b")
    removed = ok(await builder.delete(f"{WORKSPACES}/b", params={"force": "true"}))
    assert [ws["name"] for ws in removed["workspaces"]] == ["a"]

"""The conversation tree over REST: directions, cursors, forwards, visibility, one statement."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from core.mail import tree_cursor
from tests.support.gateway import Api
from tests.support.http import AGENT_MAIL, AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


async def send(client: httpx.AsyncClient, url: str, to: str, subject: str, **body: Any) -> str:
    mail = ok(await client.post(url, json={"to": to, "subject": subject, "body": "b", **body}))
    mail_id: str = mail["mail_id"]
    return mail_id


async def chunk(
    client: httpx.AsyncClient, base: str, mail_id: str, **params: Any
) -> dict[str, Any]:
    return ok(await client.get(f"{base}/{mail_id}/tree", params=params))


def shape(page: dict[str, Any]) -> list[tuple[str, int]]:
    return [(m["subject"], m["depth"]) for m in page["mails"]]


async def chain(api: Api, length: int) -> tuple[httpx.AsyncClient, httpx.AsyncClient, list[str]]:
    """jianf and builder answering each other: m0 ← m1 ← … ← m(length-1)."""
    human = await api.human("jianf")
    builder = await api.agent("builder")
    ids = [await send(human, HUMAN_SEND, "builder@ModelRouter", "m0")]
    for n in range(1, length):
        client, url, to = (
            (builder, AGENT_SEND, "jianf@") if n % 2 else (human, HUMAN_SEND, "builder@")
        )
        ids.append(await send(client, url, to, f"m{n}", reply_to=ids[-1]))
    return human, builder, ids


async def test_a_chain_in_every_direction(api: Api) -> None:
    human, builder, ids = await chain(api, 5)

    around = await chunk(human, HUMAN_MAIL, ids[2])
    assert shape(around) == [("m0", -2), ("m1", -1), ("m2", 0), ("m3", 1), ("m4", 2)]
    assert around["mail_id"] == ids[2]
    assert around["direction"] == "around"
    assert around["root_mail_id"] == ids[0]
    assert (around["next_cursor_up"], around["next_cursor_down"]) == (None, None)
    assert [m["parent_mail_id"] for m in around["mails"]] == [None, *ids[:4]]
    assert around["mails"][2]["body"] is None
    assert around["mails"][2]["body_preview"] == "b"

    up = await chunk(builder, AGENT_MAIL, ids[2], direction="ancestors")
    assert shape(up) == [("m0", -2), ("m1", -1)]
    assert (up["root_mail_id"], up["next_cursor_down"]) == (ids[0], None)
    down = await chunk(builder, AGENT_MAIL, ids[2], direction="descendants", include_body=True)
    assert shape(down) == [("m3", 1), ("m4", 2)]
    assert down["root_mail_id"] is None  # this walk never went up
    assert down["mails"][0]["body"] == "b"
    # The status is the caller's own delivery state.
    assert [m["status"] for m in down["mails"]] == [None, "unread"]  # m3 is its own

    # Around a leaf or a root, the unused half goes to the other side.
    leaf = await chunk(human, HUMAN_MAIL, ids[4], limit=3)
    assert shape(leaf) == [("m2", -2), ("m3", -1), ("m4", 0)]
    assert leaf["next_cursor_down"] is None
    assert leaf["next_cursor_up"] is not None
    assert leaf["root_mail_id"] is None  # not reached within the limit
    root = await chunk(human, HUMAN_MAIL, ids[0], limit=3)
    assert shape(root) == [("m0", 0), ("m1", 1), ("m2", 2)]
    assert (root["root_mail_id"], root["next_cursor_up"]) == (ids[0], None)


async def test_branching_replies_come_depth_first_oldest_first(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    root = await send(human, HUMAN_SEND, "builder@", "root")
    a = await send(builder, AGENT_SEND, "jianf@", "a", reply_to=root)
    b = await send(builder, AGENT_SEND, "jianf@", "b", reply_to=root)
    a1 = await send(human, HUMAN_SEND, "builder@", "a1", reply_to=a)
    await send(human, HUMAN_SEND, "builder@", "b1", reply_to=b)
    await send(human, HUMAN_SEND, "builder@", "a2", reply_to=a)
    a11 = await send(builder, AGENT_SEND, "jianf@", "a11", reply_to=a1)
    expected = [("a", 1), ("a1", 2), ("a11", 3), ("a2", 2), ("b", 1), ("b1", 2)]

    page = await chunk(human, HUMAN_MAIL, root, direction="descendants")
    assert shape(page) == expected
    assert page["next_cursor_down"] is None
    # Paged two at a time: the same order, nothing twice, nothing lost.
    assert await walk_down(human, root, limit=2) == expected
    around = await chunk(builder, AGENT_MAIL, a11)
    assert shape(around) == [("root", -3), ("a", -2), ("a1", -1), ("a11", 0)]
    # Descendants stay inside the subtree of the mail asked about.
    assert shape(await chunk(human, HUMAN_MAIL, a, direction="descendants")) == [
        ("a1", 1),
        ("a11", 2),
        ("a2", 1),
    ]


async def walk_down(client: httpx.AsyncClient, mail_id: str, limit: int) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    params: dict[str, Any] = {"direction": "descendants", "limit": limit}
    while True:
        page = await chunk(client, HUMAN_MAIL, mail_id, **params)
        assert len(page["mails"]) <= limit
        seen += shape(page)
        if page["next_cursor_down"] is None:
            return seen
        params["cursor"] = page["next_cursor_down"]


async def test_cursors_page_a_long_chain_without_gaps_or_repeats(api: Api) -> None:
    human, _, ids = await chain(api, 13)
    middle = ids[6]
    first = await chunk(human, HUMAN_MAIL, middle, limit=3)
    assert shape(first) == [("m5", -1), ("m6", 0), ("m7", 1)]

    above, cursor = [], first["next_cursor_up"]
    while cursor is not None:
        page = await chunk(human, HUMAN_MAIL, middle, direction="ancestors", limit=3, cursor=cursor)
        assert len(page["mails"]) <= 3
        above = shape(page) + above
        cursor = page["next_cursor_up"]
    assert page["root_mail_id"] == ids[0]
    below, cursor = [], first["next_cursor_down"]
    while cursor is not None:
        page = await chunk(
            human, HUMAN_MAIL, middle, direction="descendants", limit=3, cursor=cursor
        )
        below += shape(page)
        cursor = page["next_cursor_down"]
    whole = above + shape(first) + below
    assert whole == [(f"m{n}", n - 6) for n in range(13)]

    # The last full page says "no more" itself: no empty page at the end.
    assert await walk_down(human, ids[0], limit=4) == [(f"m{n}", n) for n in range(1, 13)]

    # Cursors belong to a direction; garbage is refused.
    down_cursor = first["next_cursor_down"]
    url = f"{HUMAN_MAIL}/{middle}/tree"
    refused(
        await human.get(url, params={"direction": "ancestors", "cursor": down_cursor}),
        422,
        "invalid_request",
    )
    refused(await human.get(url, params={"cursor": down_cursor}), 422, "invalid_request")
    refused(
        await human.get(url, params={"direction": "descendants", "cursor": "!!"}),
        422,
        "invalid_request",
    )
    for bad in ({"limit": 0}, {"limit": 501}, {"direction": "sideways"}):
        refused(await human.get(url, params=bad), 422, "invalid_request")


async def test_cursors_stay_short_and_climb_back_for_what_they_left_out(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    # A chain c0 ← c1 ← … ← c7 with a side reply sN off every cN: going down the
    # chain, every level leaves a branch point pending.
    chain_ids = [await send(human, HUMAN_SEND, "builder@", "c0")]
    for n in range(1, 8):
        chain_ids.append(await send(builder, AGENT_SEND, "jianf@", f"c{n}", reply_to=chain_ids[-1]))
    for n, parent in enumerate(chain_ids[:-1]):
        await send(human, HUMAN_SEND, "builder@", f"s{n}", reply_to=parent)
    expected = [(f"c{n}", n) for n in range(1, 8)]
    expected += [(f"s{n}", n + 1) for n in reversed(range(7))]
    assert await walk_down(human, chain_ids[0], limit=50) == expected
    # Cursors that keep one pending branch point: the rest are found again by
    # climbing, in the same order, and no chunk is larger than the limit.
    monkeypatch.setattr(tree_cursor, "MAX_PENDING", 1)
    for limit in (1, 2, 3):
        assert await walk_down(human, chain_ids[0], limit=limit) == expected


async def test_a_forward_crosses_conversations(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    original = await send(human, HUMAN_SEND, "builder@", "original")
    reply = await send(builder, AGENT_SEND, "jianf@", "reply", reply_to=original)
    # `.new` opens a new conversation and keeps the parent link: the tree follows it.
    forward = await send(human, HUMAN_SEND, "builder@ModelRouter.new", "fwd", reply_to=original)
    answer = await send(builder, AGENT_SEND, "jianf@", "fwd answer", reply_to=forward)

    around = await chunk(builder, AGENT_MAIL, original)
    assert shape(around) == [("original", 0), ("reply", 1), ("fwd", 1), ("fwd answer", 2)]
    sessions = {m["subject"]: m["session_id"] for m in around["mails"]}
    assert sessions["fwd"] != sessions["original"] == sessions["reply"]
    assert sessions["fwd answer"] == sessions["fwd"]
    up = await chunk(human, HUMAN_MAIL, answer, direction="ancestors")
    assert shape(up) == [("original", -2), ("fwd", -1)]
    assert up["root_mail_id"] == original
    assert reply != forward


async def test_invisible_mails_are_walked_through_and_left_out(api: Api) -> None:
    human = await api.human("jianf")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    task = await send(human, HUMAN_SEND, "builder@", "task")
    # builder asks bob in the same conversation; jianf is neither sender nor recipient.
    question = await send(builder, AGENT_SEND, "bob@", "question", reply_to=task)
    answer = await send(bob, HUMAN_SEND, "jianf@", "answer", reply_to=question)

    around = await chunk(human, HUMAN_MAIL, task)
    assert shape(around) == [("task", 0), ("answer", 2)]  # the reply keeps its true depth
    assert around["mails"][1]["parent_mail_id"] == question
    up = await chunk(human, HUMAN_MAIL, answer, direction="ancestors")
    assert shape(up) == [("task", -2)]
    assert up["root_mail_id"] == task
    assert shape(await chunk(bob, HUMAN_MAIL, answer)) == [("question", -1), ("answer", 0)]

    # A mail the caller cannot see, or that does not exist: 404, whatever the direction.
    for direction in ("around", "ancestors", "descendants"):
        url = f"{HUMAN_MAIL}/{question}/tree"
        refused(await human.get(url, params={"direction": direction}), 404, "not_found")
    refused(await bob.get(f"{HUMAN_MAIL}/{task}/tree"), 404, "not_found")
    refused(await human.get(f"{HUMAN_MAIL}/no-such-mail/tree"), 404, "not_found")
    # Agents use /mail, humans /me/mail.
    refused(await builder.get(f"{HUMAN_MAIL}/{task}/tree"), 403, "forbidden")
    refused(await human.get(f"{AGENT_MAIL}/{task}/tree"), 403, "forbidden")

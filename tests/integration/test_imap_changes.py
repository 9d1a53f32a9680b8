"""IMAP change tracking: a selected session learns what changed elsewhere by mod-sequence,
without re-reading its folder (core/mailboxes/uids.py `touch`, core/mailboxes/contents.py
`folder_changes`)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aioimaplib
import httpx

from core.mailboxes.contents import folder_changes, folder_state
from core.mailboxes.folders import FolderInfo, ensure_folders, list_folders
from core.store.engine import Store
from tests.integration.test_tree_statements import quiet_api, statements
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import imap_login

__all__ = ["quiet_api"]  # the fixture, imported for the statement-count test


@asynccontextmanager
async def selected(api: Api, name: str, mailbox: str = "INBOX") -> AsyncIterator[aioimaplib.IMAP4]:
    client = aioimaplib.IMAP4("127.0.0.1", api.gateway.imap_port, timeout=15)
    await client.wait_hello_from_server()
    assert (await client.login(name, PASSWORD)).result == "OK"
    assert (await client.select(mailbox)).result == "OK"
    try:
        yield client
    finally:
        await client.logout()


async def noop(client: aioimaplib.IMAP4) -> list[str]:
    """The untagged replies a NOOP brings (RFC 3501 §6.1.2: pending updates)."""
    response = await client.noop()
    assert response.result == "OK"
    return [x.decode() if isinstance(x, bytes) else str(x) for x in response.lines[:-1]]


async def send(agent: httpx.AsyncClient, subject: str) -> dict[str, Any]:
    payload = {"to": "jianf@", "subject": subject, "budget": "unlimited"}
    return ok(await agent.post("/api/v1/mail/send", json=payload))


async def test_a_selected_session_sees_what_changed_elsewhere(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = await send(builder, "first")
    await send(builder, "second")
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "Merge?", "options": ["yes", "no"]},
        )
    )
    # `client` is the first session to SELECT INBOX: its three messages are \\Recent to it
    # alone (RFC 3501 §2.3.2), so its FLAGS carry \\Recent, and RECENT follows the count.
    async with selected(api, "jianf") as client, selected(api, "jianf", '"Needs decision"') as asks:
        assert await noop(client) == []
        ok(await jianf.post(f"/api/v1/me/mail/{first['mail_id']}/read"))  # REST
        assert await noop(client) == ["1 FETCH (FLAGS (\\Recent \\Seen))"]
        async with imap_login(api.gateway, "jianf") as other:  # another IMAP session
            await other.ok("select", "INBOX")
            await other.ok("store", "1", "-FLAGS", "(\\Seen)")
            await other.ok("store", "2", "+FLAGS", "(\\Seen)")
        assert sorted(await noop(client)) == [
            "1 FETCH (FLAGS (\\Recent))",
            "2 FETCH (FLAGS (\\Recent \\Seen))",
        ]
        async with imap_login(api.gateway, "jianf") as other:  # a kept flag, elsewhere
            await other.ok("select", "INBOX")
            await other.ok("store", "2", "+FLAGS", "(\\Flagged)")
        [line] = await noop(client)
        assert line.startswith("2 FETCH (FLAGS (") and set(line[16:-2].split()) == {
            "\\Recent",
            "\\Seen",
            "\\Flagged",
        }
        await send(builder, "third")  # new mail (pymap adds its FLAGS), claimed by this session
        assert await noop(client) == ["4 EXISTS", "4 RECENT", "4 FETCH (FLAGS (\\Recent))"]
        ok(await jianf.post(f"/api/v1/me/mail/{first['mail_id']}/archive"))
        assert await noop(client) == ["1 EXPUNGE", "3 RECENT"]
        assert await noop(client) == []
        second = ok(await jianf.get("/api/v1/me/mail/inbox", params={"order": "oldest"}))
        ok(await jianf.post(f"/api/v1/me/mail/{second['mails'][0]['mail_id']}/delete"))
        assert await noop(client) == ["1 EXPUNGE", "2 RECENT"]  # into Trash, out of INBOX
        decision = {"mail_id": asked["mail_id"], "decision": "yes"}
        ok(await jianf.post("/api/v1/me/permission/decide", json=decision))
        # A decided request leaves Needs decision (Dovecot too says `* 0 RECENT` then).
        assert await noop(asks) == ["1 EXPUNGE", "0 RECENT"]


async def test_commands_after_select_read_only_what_changed(quiet_api: Api) -> None:
    """Per command, the same statements whatever the size of the folder, and none
    reads the folder's messages except those changed since the session's mod-sequence."""
    api = quiet_api
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    store = api.gateway.store
    assert store is not None
    counts: dict[tuple[str, int], int] = {}
    mails: list[dict[str, Any]] = []
    for size in (3, 25):
        mails += [await send(builder, f"mail {n}") for n in range(len(mails), size)]
        async with selected(api, "jianf") as client:
            with statements(store) as quiet:
                assert await noop(client) == []
            ok(await jianf.post(f"/api/v1/me/mail/{mails[-1]['mail_id']}/read"))
            with statements(store) as changed:  # new to this SELECT: \\Recent to it
                assert await noop(client) == [f"{size} FETCH (FLAGS (\\Recent \\Seen))"]
        counts[("quiet", size)], counts[("changed", size)] = len(quiet), len(changed)
        for statement in quiet + changed:
            if "imap_uids" in statement:
                assert "modseq >" in statement, statement
    assert counts[("quiet", 3)] == counts[("quiet", 25)], counts
    assert counts[("changed", 3)] == counts[("changed", 25)], counts


async def _follow(
    store: Store, owner: str, folder: FolderInfo, stop: asyncio.Event
) -> dict[int, bool]:
    """A session's view kept up by `folder_changes` alone, until `stop` and one last read."""
    start = await folder_state(store, owner, folder)
    view = {m.uid: m.seen for m in start.messages}
    modseq = start.highest_modseq
    while True:
        last = stop.is_set()
        changes = await folder_changes(store, owner, folder, modseq)
        assert changes.highest_modseq >= modseq  # RFC 7162 §3.1.1: it never goes down
        for uid in changes.expunged:
            view.pop(uid, None)
        view.update((m.uid, m.seen) for m in changes.changed)
        modseq = changes.highest_modseq
        if last:
            return view
        await asyncio.sleep(0)


async def test_following_changes_ends_where_a_fresh_read_does(api: Api) -> None:
    """Under concurrent new mail, reads, unreads and archiving, a view kept up by
    mod-sequence alone equals the folder read afresh: no change is ever missed,
    on SQLite and PostgreSQL (a change commits in mod-sequence order)."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    store = api.gateway.store
    assert store is not None
    await ensure_folders(store, "jianf")
    inbox = next(f for f in await list_folders(store, "jianf") if f.key == "inbox")
    ids = [(await send(builder, f"before {n}"))["mail_id"] for n in range(6)]
    stop = asyncio.Event()
    follower = asyncio.create_task(_follow(store, "jianf", inbox, stop))
    rng = random.Random(5)

    async def change(n: int) -> None:
        action = rng.choice(["send", "read", "unread", "archive", "unarchive", "delete", "restore"])
        if action == "send":
            ids.append((await send(builder, f"during {n}"))["mail_id"])
            return
        mail_id = rng.choice(ids)
        response = await jianf.post(f"/api/v1/me/mail/{mail_id}/{action}")
        assert response.status_code in (200, 404, 409), response.text

    await asyncio.gather(*(change(n) for n in range(24)))
    stop.set()
    view = await follower
    fresh = await folder_state(store, "jianf", inbox)
    assert view == {m.uid: m.seen for m in fresh.messages}

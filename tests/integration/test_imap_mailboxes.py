"""IMAP folders with imaplib: LIST with SPECIAL-USE, STATUS, SELECT/EXAMINE, UIDs per folder."""

from __future__ import annotations

import imaplib
import re
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from core.store.models import ImapFolder
from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.imap import Imap, imap_login


async def agent_mails(agent: httpx.AsyncClient, subject: str, **extra: Any) -> dict[str, Any]:
    body = {"to": "jianf@", "subject": subject, "body": f"about {subject}", **extra}
    return ok(await agent.post("/api/v1/mail/send", json=body))


def listed(lines: list[bytes]) -> dict[str, set[str]]:
    """LIST lines as {name: attributes}."""
    out = {}
    for line in lines:
        match = re.fullmatch(rb'\(([^)]*)\) "/" (.+)', line)
        assert match is not None, line
        out[match.group(2).decode().strip('"')] = set(match.group(1).decode().split())
    return out


async def status(imap: Imap, name: str) -> dict[str, int]:
    [line] = await imap.ok("status", f'"{name}"', "(MESSAGES UNSEEN UIDNEXT UIDVALIDITY)")
    items = re.search(rb"\((.*)\)", line)
    assert items is not None
    words = items.group(1).decode().split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


async def test_list_names_every_folder_with_its_special_use(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "Fix the leak", session_alias="fix-leak")
    async with imap_login(api.gateway, "jianf") as imap:
        folders = listed(await imap.ok("list"))
    assert folders == {
        "INBOX": {"\\HasNoChildren"},
        "Sent": {"\\HasNoChildren", "\\Sent"},
        "Drafts": {"\\HasNoChildren", "\\Drafts"},
        "Archive": {"\\HasNoChildren", "\\Archive"},
        "Trash": {"\\HasNoChildren", "\\Trash"},
        "Needs decision": {"\\HasNoChildren"},
        "Sessions": {"\\Noselect", "\\HasChildren"},
        "Sessions/fix-leak": {"\\HasNoChildren"},
    }


async def test_status_and_select_count_what_is_there(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = await agent_mails(builder, "one")
    await agent_mails(builder, "two")
    ok(await jianf.post(f"/api/v1/me/mail/{first['mail_id']}/read"))
    async with imap_login(api.gateway, "jianf") as imap:
        inbox = await status(imap, "INBOX")
        assert inbox["MESSAGES"] == 2 and inbox["UNSEEN"] == 1 and inbox["UIDNEXT"] == 3
        assert inbox["UIDVALIDITY"] > 0
        assert (await status(imap, "Sent"))["MESSAGES"] == 0
        assert await imap.ok("select", "INBOX") == [b"2"]
        assert imap.client.response("UNSEEN") == ("UNSEEN", [b"2"])  # first unseen: message 2
        assert await imap.ok("select", "INBOX", True) == [b"2"]
        typ, data = await imap("select", "Nowhere")
        assert typ == "NO" and b"NONEXISTENT" in data[0]


async def test_examine_is_read_only(api: Api) -> None:
    await api.human("jianf")
    await agent_mails(await api.agent("builder"), "one")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX", True)
        typ, _ = await imap("store", "1", "+FLAGS", "(\\Seen)")
        assert typ == "NO"
        assert await imap.search_uids("UNSEEN") == [1]


async def test_uids_ascend_per_folder_and_archiving_gives_a_higher_uid(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [await agent_mails(builder, f"mail {n}") for n in range(3)]
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        assert await imap.search_uids("ALL") == [1, 2, 3]
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]['mail_id']}/archive"))
        ok(await jianf.post(f"/api/v1/me/mail/{mails[0]['mail_id']}/archive"))
        await imap.ok("noop")
        assert await imap.search_uids("ALL") == [3]
        await imap.ok("select", "Archive")
        assert await imap.search_uids("ALL") == [1, 2]
        assert await imap.search_uids("SUBJECT", '"mail 0"') == [2]  # archived last
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]['mail_id']}/unarchive"))
        await imap.ok("select", "INBOX")
        assert await imap.search_uids("ALL") == [3, 4]  # back with a new UID, never 2 again
        assert (await status(imap, "INBOX"))["UIDNEXT"] == 5


async def test_sent_and_the_conversation_folder(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(
        await jianf.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "a task", "session_alias": "task"},
        )
    )
    await agent_mails(builder, "done", reply_to=task["mail_id"])
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Sent")
        assert await imap.search_uids("ALL") == [1]
        assert await imap.search_uids("SEEN") == [1]  # what I sent is read
        await imap.ok("select", "Sessions/task")
        assert await imap.search_uids("ALL") == [1, 2]
        assert await imap.search_uids("UNSEEN") == [2]


async def test_a_renamed_conversation_keeps_its_folder(api: Api) -> None:
    jianf = await api.human("jianf")
    sent = await agent_mails(await api.agent("builder"), "one", session_alias="old-name")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Sessions/old-name")
        ok(
            await jianf.patch(
                f"/api/v1/me/sessions/{sent['session_id']}", json={"session_alias": "new-name"}
            )
        )
        assert await imap.search_uids("ALL") == [1]  # still selected, by folder id
        names = listed(await imap.ok("list", '""', '"Sessions/*"'))
        assert set(names) == {"Sessions/new-name"}
        validity = (await status(imap, "Sessions/new-name"))["UIDVALIDITY"]
        assert validity > 0


async def test_needs_decision_holds_open_requests_only(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "May I merge?", "options": ["yes", "no"]},
        )
    )
    async with imap_login(api.gateway, "jianf") as imap:
        assert (await status(imap, "Needs decision"))["MESSAGES"] == 1
        await imap.ok("select", '"Needs decision"')
        assert await imap.search_uids("ALL") == [1]
        ok(
            await jianf.post(
                "/api/v1/me/permission/decide",
                json={"mail_id": asked["mail_id"], "decision": "yes"},
            )
        )
        await imap.ok("noop")
        assert await imap.search_uids("ALL") == []
        assert (await status(imap, "Needs decision"))["MESSAGES"] == 0


async def test_agents_get_no_folders(api: Api) -> None:
    """Only humans read mail over IMAP: agent mail files no UIDs."""
    await api.human("jianf")
    await api.agent("critic", [("repo", "/srv/repo")])
    builder = await api.agent("builder")
    ok(await builder.post("/api/v1/mail/send", json={"to": "critic@repo", "subject": "x"}))
    store = api.gateway.store
    assert store is not None
    owners = await store.read(lambda s: set(s.scalars(select(ImapFolder.owner))))
    assert "critic" not in owners and "builder" not in owners
    with pytest.raises(imaplib.IMAP4.error):
        async with imap_login(api.gateway, "critic"):
            pass


async def test_move_to_archive_archives_and_back_unarchives(api: Api) -> None:
    """RFC 6851 MOVE between INBOX and Archive is the web UI's archive button."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [await agent_mails(builder, f"move {n}") for n in range(3)]
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        typ, data = await imap("uid", "MOVE", "1:2", "Archive")
        assert typ == "OK", data
        _, [copyuid] = imap.client.response("COPYUID")  # RFC 4315: source UIDs, new UIDs
        assert copyuid.split()[1:] == [b"1:2", b"1:2"], copyuid
        assert await imap.search_uids("ALL") == [3]
        for mail in mails[:2]:
            assert ok(await jianf.get(f"/api/v1/me/mail/{mail['mail_id']}"))["status"] == "archived"
        typ, data = await imap("uid", "MOVE", "1", "Archive")  # gone already
        assert typ == "NO" and b"no message was moved" in data[0]
        typ, data = await imap("uid", "MOVE", "1", "Sent")
        assert typ == "NO" and b"into INBOX, Archive, Trash or a folder of your own only" in data[0]
        await imap.ok("select", "Archive")
        typ, data = await imap("uid", "MOVE", "2", "INBOX")
        assert typ == "OK", data
        assert await imap.search_uids("ALL") == [1]
        await imap.ok("select", "INBOX")
        assert await imap.search_uids("ALL") == [3, 4]  # back under a new UID
    assert ok(await jianf.get(f"/api/v1/me/mail/{mails[1]['mail_id']}"))["status"] == "unread"

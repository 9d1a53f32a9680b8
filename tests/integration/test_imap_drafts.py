"""IMAP `Drafts` with imaplib: drafts shown as messages, APPEND saves one, EXPUNGE deletes."""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.imap import Imap, fetched, imap_login

D = "agentmail.localhost"
DRAFTS = "/api/v1/me/drafts"


def draft_message(body: str, message_id: str, to: str = f"builder+ModelRouter@{D}") -> bytes:
    message = EmailMessage()
    message["From"] = f"jianf@{D}"
    message["To"] = to
    message["Cc"] = f"bob@{D}"
    message["Subject"] = "Plan for Monday"
    message["Message-ID"] = message_id
    message.set_content(body)
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


async def append(imap: Imap, raw: bytes) -> int:
    typ, data = await imap("append", "Drafts", "(\\Draft \\Seen)", None, raw)
    assert typ == "OK", data
    found = re.search(rb"APPENDUID \d+ (\d+)\]", data[0])
    assert found is not None, data
    return int(found.group(1))


async def drafts(jianf: httpx.AsyncClient) -> list[dict[str, Any]]:
    listed = ok(await jianf.get(DRAFTS, params={"include_body": True}))
    return list(listed["drafts"])


async def test_append_to_drafts_saves_a_draft_the_web_ui_sees(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.human("bob")
    await api.agent("builder")
    async with imap_login(api.gateway, "jianf") as imap:
        assert await append(imap, draft_message("first words\n", "<d1@client>")) == 1
        [saved] = await drafts(jianf)
        assert saved["to"] == "builder@ModelRouter" and saved["cc"] == ["bob@"]
        assert (saved["subject"], saved["body"]) == ("Plan for Monday", "first words\n")
        await imap.ok("select", "Drafts")
        data = await imap.uid("FETCH", "1", "(FLAGS BODY.PEEK[])")
        [entry] = fetched(data).values()
        assert entry["FLAGS"] == {"\\Seen", "\\Draft", "\\Recent"}  # the first SELECT since
        served = entry["BODY[]"]
        assert b"Subject: Plan for Monday" in served and b"first words" in served
        assert (
            b"Message-ID: <d1@client>" in served
            and f"To: builder+ModelRouter@{D}".encode() in served
        )


async def test_autosave_replaces_the_version_it_supersedes(api: Api) -> None:
    """Thunderbird APPENDs each version, then STORE \\Deleted + EXPUNGE of the one before."""
    jianf = await api.human("jianf")
    await api.human("bob")
    await api.agent("builder")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Drafts")
        assert await append(imap, draft_message("v1", "<same@client>")) == 1
        assert await append(imap, draft_message("v2", "<same@client>")) == 2  # same id: replaced
        assert [d["body"] for d in await drafts(jianf)] == ["v2\n"]
        await imap.uid("STORE", "1", "+FLAGS", "(\\Deleted)")  # the client deletes v1: gone already
        await imap.ok("expunge")
        assert await imap.search_uids("ALL") == [2]
        assert await append(imap, draft_message("v3", "<other@client>")) == 3
        await imap.uid("STORE", "2", "+FLAGS", "(\\Deleted)")
        await imap.ok("expunge")
        assert await imap.search_uids("ALL") == [3]
    assert [d["body"] for d in await drafts(jianf)] == ["v3\n"]


async def test_drafts_saved_over_rest_are_in_drafts_and_move_to_trash_deletes(api: Api) -> None:
    jianf = await api.human("jianf")
    created = await jianf.post(DRAFTS, json={"to": "bob@", "subject": "web", "body": "hi"})
    assert created.status_code == 201, created.text
    saved = created.json()
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Drafts")
        assert await imap.search_uids("ALL") == [1]
        edited = {"to": "bob@", "subject": "web", "body": "hello"}
        ok(await jianf.put(f"{DRAFTS}/{saved['draft_id']}", json=edited))
        assert await imap.search_uids("ALL") == [2]  # a new version is a new message
        typ, data = await imap("uid", "COPY", "2", "Archive")
        assert typ == "NO" and b"drafts are not mail" in data[0], data
        typ, data = await imap("uid", "MOVE", "2", "Trash")  # Thunderbird's delete
        assert typ == "OK", data
        assert await imap.search_uids("ALL") == []
    assert await drafts(jianf) == []


async def test_a_draft_with_a_malformed_address_is_refused(api: Api) -> None:
    jianf = await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        raw = draft_message("x", "<bad@client>", to=f"_x@{D}")
        typ, data = await imap("append", "Drafts", None, None, raw)
        assert typ == "NO" and b"[CLIENTBUG] invalid name '_x'" in data[0], data
    assert await drafts(jianf) == []

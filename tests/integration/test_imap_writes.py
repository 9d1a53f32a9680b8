"""IMAP writes with imaplib: kept flags, EXPUNGE into Trash, MOVE/COPY, refused writes."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import ok, refused
from tests.support.imap import Imap, fetched, imap_login


async def agent_mails(agent: httpx.AsyncClient, subject: str, **extra: Any) -> dict[str, Any]:
    body = {"to": "jianf@", "subject": subject, "body": f"about {subject}", **extra}
    return ok(await agent.post("/api/v1/mail/send", json=body))


async def flags(imap: Imap, uids: str = "1:*") -> dict[int, set[str]]:
    """FLAGS by UID."""
    data = await imap.uid("FETCH", uids, "(FLAGS)")
    return {entry["UID"]: entry["FLAGS"] for entry in fetched(data).values()}


async def status_of(jianf: httpx.AsyncClient, mail: dict[str, Any]) -> dict[str, Any]:
    return ok(await jianf.get(f"/api/v1/me/mail/{mail['mail_id']}"))


async def test_flagged_and_answered_are_stored_per_recipient(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    shared = await agent_mails(builder, "for both", cc=["bob@"])
    await agent_mails(builder, "second")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        await imap.uid("STORE", "1", "+FLAGS", "(\\Flagged \\Answered)")
        await imap.uid("STORE", "2", "+FLAGS", "(\\Answered)")
        assert await imap.search_uids("FLAGGED") == [1]
        assert await imap.search_uids("UNFLAGGED") == [2]
        assert await imap.search_uids("ANSWERED") == [1, 2]
        await imap.uid("STORE", "2", "-FLAGS", "(\\Answered)")
        assert await imap.search_uids("UNANSWERED") == [2]
        await imap.uid("STORE", "2", "+FLAGS", "(\\Draft)")  # kept, as Dovecot keeps it
        assert await imap.search_uids("DRAFT") == [2]
        await imap.uid("STORE", "2", "-FLAGS", "(\\Draft)")
        assert await imap.search_uids("UNDRAFT") == [1, 2]
    async with imap_login(api.gateway, "jianf") as imap:  # kept across sessions
        await imap.ok("select", "INBOX")
        assert await flags(imap) == {1: {"\\Flagged", "\\Answered"}, 2: set()}
        _, [permanent] = imap.client.response("PERMANENTFLAGS")
        assert set(permanent.decode().strip("()").split()) == {
            "\\Seen",
            "\\Flagged",
            "\\Answered",
            "\\Deleted",
            "\\Draft",
            "\\*",
        }
    view = await status_of(jianf, shared)
    assert view["flagged"] is True and view["answered"] is True
    async with imap_login(api.gateway, "bob") as imap:  # bob's delivery has its own flags
        await imap.ok("select", "INBOX")
        assert await flags(imap) == {1: {"\\Recent"}}  # bob's first SELECT since it came


async def test_expunge_in_inbox_moves_to_trash_and_rest_restores(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [await agent_mails(builder, f"mail {n}") for n in range(3)]
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        await imap.uid("STORE", "1:2", "+FLAGS", "(\\Deleted)")
        assert await imap.search_uids("DELETED") == [1, 2]
        await imap.ok("expunge")
        assert await imap.search_uids("ALL") == [3]
        await imap.ok("select", "Trash")
        assert await imap.search_uids("ALL") == [1, 2]
    for mail in mails[:2]:
        assert (await status_of(jianf, mail))["status"] == "deleted"
    trash = ok(await jianf.get("/api/v1/me/mail/inbox", params={"status": "deleted"}))
    assert {m["mail_id"] for m in trash["mails"]} == {m["mail_id"] for m in mails[:2]}
    inbox = ok(await jianf.get("/api/v1/me/mail/inbox"))
    assert [m["mail_id"] for m in inbox["mails"]] == [mails[2]["mail_id"]]
    restored = ok(await jianf.post(f"/api/v1/me/mail/{mails[0]['mail_id']}/restore"))
    assert restored == {"mail_id": mails[0]["mail_id"], "status": "unread"}
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Trash")
        assert await imap.search_uids("ALL") == [2]
        await imap.ok("select", "INBOX")
        assert await imap.search_uids("ALL") == [3, 4]  # back under a new UID


async def test_expunge_in_trash_only_hides_and_the_mail_stays_restorable(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mail = await agent_mails(builder, "to trash")
    ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/archive"))
    deleted = ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/delete"))
    assert deleted["status"] == "deleted"
    refused(await builder.post(f"/api/v1/mail/{mail['mail_id']}/delete"), 403, "forbidden")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Trash")
        assert await imap.search_uids("ALL") == [1]
        await imap.uid("STORE", "1", "+FLAGS", "(\\Deleted)")
        await imap.uid("EXPUNGE", "1")  # RFC 4315 UID EXPUNGE
        assert await imap.search_uids("ALL") == []
    assert (await status_of(jianf, mail))["status"] == "deleted"
    restored = ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/restore"))
    assert restored["status"] == "archived"  # back where it was deleted from
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Archive")
        assert await imap.search_uids("ALL") == [2]


async def test_move_and_copy_to_trash_and_archive(api: Api) -> None:
    """Thunderbird deletes with MOVE to Trash, or COPY + STORE \\Deleted + EXPUNGE."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [await agent_mails(builder, "m0", session_alias="chat")]
    mails += [await agent_mails(builder, f"m{n}", to="jianf@.chat") for n in range(1, 4)]
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        typ, data = await imap("uid", "MOVE", "1", "Trash")
        assert typ == "OK", data
        _, [copyuid] = imap.client.response("COPYUID")
        assert copyuid.split()[1:] == [b"1", b"1"], copyuid
        typ, data = await imap("uid", "COPY", "2", "Trash")
        assert typ == "OK", data
        _, [copyuid] = imap.client.response("COPYUID")
        assert copyuid.split()[1:] == [b"2", b"2"], copyuid
        await imap.uid("STORE", "2", "+FLAGS", "(\\Deleted)")
        await imap.ok("expunge")
        assert await imap.search_uids("ALL") == [3, 4]
        await imap.ok("select", "Trash")
        assert await imap.search_uids("ALL") == [1, 2]
        typ, data = await imap("uid", "MOVE", "2", "INBOX")  # undo a delete
        assert typ == "OK", data
        await imap.ok("select", "Sessions/chat")  # the conversation keeps all four
        assert await imap.search_uids("ALL") == [1, 2, 3, 4]
        typ, data = await imap("uid", "COPY", "3", "Archive")
        assert typ == "OK", data
        assert await imap.search_uids("ALL") == [1, 2, 3, 4]
    statuses = [(await status_of(jianf, mail))["status"] for mail in mails]
    assert statuses == ["deleted", "unread", "archived", "unread"]


async def test_a_copy_out_stays_in_the_copying_sessions_view_until_its_expunge(
    api: Api,
) -> None:
    """mutt's sync with `trash` set: COPY to Trash, a look for news, STORE the flags,
    EXPUNGE. The COPY deletes the mail (the web UI and other sessions see it so at once),
    but the copying session keeps it until its own EXPUNGE: an EXPUNGE found before
    made mutt drop the STOREs it was about to send (imap_view/copied_out.py)."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    keep = await agent_mails(builder, "keep")
    gone = await agent_mails(builder, "gone")
    async with imap_login(api.gateway, "jianf") as imap, imap_login(api.gateway, "jianf") as other:
        await imap.ok("select", "INBOX")
        await other.ok("select", "INBOX")
        typ, data = await imap("uid", "COPY", "2", "Trash")
        assert typ == "OK", data
        assert (await status_of(jianf, gone))["status"] == "deleted"
        assert await other.search_uids("ALL") == [1]  # gone for every other session
        await imap.ok("noop")  # mutt's IDLE between its COPY and its STOREs
        assert await imap.search_uids("ALL") == [1, 2]
        await imap.uid("STORE", "2", "+FLAGS.SILENT", "(\\Deleted)")
        await imap.uid("STORE", "1", "+FLAGS.SILENT", "(\\Flagged)")
        await imap.ok("noop")
        assert imap.client.response("EXPUNGE") == ("EXPUNGE", [None])  # none until now
        assert await imap.ok("expunge") == [b"2"]  # imaplib: the EXPUNGE responses
        assert await imap.search_uids("ALL") == [1]
        await imap.ok("select", "Trash")
        # Its \\Deleted done with: not expunged again; new in Trash, and this the first
        # session to SELECT Trash since (RFC 3501 §2.3.2).
        assert await flags(imap) == {1: {"\\Recent"}}
    assert (await status_of(jianf, keep))["flagged"] is True
    assert (await status_of(jianf, gone))["status"] == "deleted"


async def test_refused_writes_say_why(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "one", session_alias="chat")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Sessions/chat")
        typ, data = await imap("uid", "MOVE", "1", "Trash")
        assert typ == "NO" and b"conversation's folder keeps every mail" in data[0], data
        await imap.uid("STORE", "1", "+FLAGS", "(\\Deleted)")
        typ, data = await imap("expunge")
        assert typ == "NO" and b"nothing was expunged" in data[0], data
        await imap.ok("close")  # CLOSE still closes
        await imap.ok("select", "INBOX")
        typ, data = await imap("uid", "COPY", "1", "Sessions/chat")
        assert (
            typ == "NO" and b"into INBOX, Archive, Trash or a folder of your own only" in data[0]
        ), data
        typ, data = await imap("uid", "COPY", "1", "INBOX")
        assert typ == "NO" and b"from another folder" in data[0], data
        await imap.ok("select", "Sent")
        typ, data = await imap("uid", "MOVE", "1:*", "Trash")
        assert typ == "NO", data
        typ, data = await imap("append", '"Needs decision"', None, None, b"Subject: x\r\n\r\nx\r\n")
        assert typ == "NO" and b"a view of the gateway's mail" in data[0], data
        await imap.ok("select", "INBOX", True)  # EXAMINE
        typ, data = await imap("uid", "STORE", "1", "+FLAGS", "(\\Flagged)")
        assert typ == "NO", data


async def test_two_sessions_deleting_the_same_mail_file_it_once(api: Api) -> None:
    """The second MOVE waits for the first (a row lock) and finds nothing left to move."""
    await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(20):
        await agent_mails(builder, f"mail {n}")
    async with imap_login(api.gateway, "jianf") as one, imap_login(api.gateway, "jianf") as two:
        await one.ok("select", "INBOX")
        await two.ok("select", "INBOX")
        answers = await asyncio.gather(
            one("uid", "MOVE", "1:20", "Trash"), two("uid", "MOVE", "20:1", "Trash")
        )
        assert sorted(typ for typ, _ in answers) == ["NO", "OK"], answers
        await one.ok("select", "Trash")
        assert await one.search_uids("ALL") == list(range(1, 21))


async def test_expunges_held_back_during_fetch_come_with_the_next_command(api: Api) -> None:
    """RFC 3501 §7.4.1: no EXPUNGE during FETCH, STORE or SEARCH; the next CHECK or NOOP
    tells them, even when nothing changed since (imaptest's expunge group)."""
    await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(4):
        await agent_mails(builder, f"mail {n}")
    async with imap_login(api.gateway, "jianf") as one, imap_login(api.gateway, "jianf") as two:
        await one.ok("select", "INBOX")
        await two.ok("select", "INBOX")
        await one.ok("store", "1,3", "+FLAGS", "(\\Deleted)")
        await one.ok("expunge")
        await two.ok("fetch", "2,4", "(UID)")  # sees the change, may not tell the expunges
        assert "EXPUNGE" not in two.client.untagged_responses
        await two.ok("check")
        assert two.client.untagged_responses.pop("EXPUNGE", []) == [b"3", b"1"]
        assert await two.search_uids("ALL") == [2, 4]

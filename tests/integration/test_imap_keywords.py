"""IMAP flags per mailbox, keywords and `\\Deleted` kept across sessions.

Replays the report: the Drafts mailbox's FLAGS listed `(\\Deleted \\Recent)` while its
messages carry `\\Draft \\Seen`; `STORE +FLAGS ($Label1)` was dropped silently, and a
`\\Deleted` set in one session was gone for the EXPUNGE of the next.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.imap import Imap, fetched, imap_login

SYSTEM = {"\\Answered", "\\Deleted", "\\Draft", "\\Flagged", "\\Seen"}


async def agent_mails(agent: httpx.AsyncClient, subject: str, **extra: Any) -> dict[str, Any]:
    body = {"to": "jianf@", "subject": subject, "body": f"about {subject}", **extra}
    return ok(await agent.post("/api/v1/mail/send", json=body))


def _listed(imap: Imap, code: str) -> set[str]:
    _, [value] = imap.client.response(code)
    return set(value.decode().strip("()").split())


async def selected_flags(imap: Imap, mailbox: str) -> tuple[set[str], set[str], set[str]]:
    """FLAGS, PERMANENTFLAGS and the union of the messages' flags after SELECT."""
    await imap.ok("select", mailbox)
    defined, permanent = _listed(imap, "FLAGS"), _listed(imap, "PERMANENTFLAGS")
    carried: set[str] = set()
    typ, data = await imap("uid", "FETCH", "1:*", "(FLAGS)")
    if typ == "OK" and data != [None]:
        for entry in fetched(data).values():
            carried |= entry["FLAGS"]
    return defined, permanent, carried


async def flags_by_uid(imap: Imap) -> dict[int, set[str]]:
    data = await imap.uid("FETCH", "1:*", "(FLAGS)")
    return {entry["UID"]: entry["FLAGS"] for entry in fetched(data).values()}


async def test_flags_and_permanentflags_list_what_each_mailbox_keeps(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    received = await agent_mails(builder, "hello", session_alias="chat")
    reply = {"to": "builder@ModelRouter", "subject": "Re", "body": "ok"}
    ok(await jianf.post("/api/v1/me/mail/send", json={**reply, "reply_to": received["mail_id"]}))
    draft = await jianf.post("/api/v1/me/drafts", json={"to": "builder@", "subject": "later"})
    assert draft.status_code == 201, draft.text
    deleted = await agent_mails(builder, "bin me")
    ok(await jianf.post(f"/api/v1/me/mail/{deleted['mail_id']}/delete"))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        await imap.uid("STORE", "1", "+FLAGS", "($Label1)")
        for mailbox in ("INBOX", "Sent", "Trash", "Sessions/chat"):
            defined, permanent, carried = await selected_flags(imap, mailbox)
            assert defined == SYSTEM | {"$Label1"}, (mailbox, defined)
            assert permanent == SYSTEM | {"\\*"}, (mailbox, permanent)
            # \Recent is the session's, never listed in FLAGS (Dovecot lists it neither).
            assert carried - {"\\Recent"} <= defined, (mailbox, carried)
        defined, permanent, carried = await selected_flags(imap, "Drafts")
        assert carried == {"\\Draft", "\\Seen", "\\Recent"}  # the first SELECT of Drafts
        assert defined == {"\\Deleted", "\\Draft", "\\Seen"}  # no \Recent, as above
        assert permanent == set()  # a draft keeps no flags


async def test_keywords_are_kept_and_shared_with_other_sessions_and_rest(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = await agent_mails(builder, "first")
    await agent_mails(builder, "second")
    async with (
        imap_login(api.gateway, "jianf") as one,
        imap_login(api.gateway, "jianf") as two,
    ):
        await one.ok("select", "INBOX")
        await two.ok("select", "INBOX")
        assert await flags_by_uid(two) == {1: set(), 2: set()}
        await one.uid("STORE", "1", "+FLAGS", "($Label1)")  # the report's command
        await one.uid("STORE", "1:2", "+FLAGS", "($Junk $Forwarded)")
        await one.uid("STORE", "2", "-FLAGS", "($Junk)")
        assert await flags_by_uid(two) == {  # the other session is told
            1: {"$Label1", "$Junk", "$Forwarded"},
            2: {"$Forwarded"},
        }
        assert await two.search_uids("KEYWORD", "$Label1") == [1]
        assert await two.search_uids("UNKEYWORD", "$Junk") == [2]
    async with imap_login(api.gateway, "jianf") as again:  # and the next session
        await again.ok("select", "INBOX")
        assert await flags_by_uid(again) == {
            1: {"$Label1", "$Junk", "$Forwarded"},
            2: {"$Forwarded"},
        }
    view = ok(await jianf.get(f"/api/v1/me/mail/{first['mail_id']}"))
    assert view["keywords"] == ["$Forwarded", "$Junk", "$Label1"]
    listed = ok(await jianf.get("/api/v1/me/mail/inbox"))
    assert {m["subject"]: m["keywords"] for m in listed["mails"]} == {
        "first": ["$Forwarded", "$Junk", "$Label1"],
        "second": ["$Forwarded"],
    }
    sent = ok(await builder.get(f"/api/v1/mail/{first['mail_id']}"))
    assert sent["keywords"] is None  # the sender has no delivery, so no keywords


async def test_deleted_marked_in_one_session_is_expunged_in_another(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [await agent_mails(builder, f"mail {n}") for n in range(3)]
    async with imap_login(api.gateway, "jianf") as one:
        await one.ok("select", "INBOX")
        await one.uid("STORE", "1:2", "+FLAGS", "(\\Deleted)")
    async with imap_login(api.gateway, "jianf") as two:
        await two.ok("select", "INBOX")
        assert await two.search_uids("DELETED") == [1, 2]
        await two.ok("expunge")
        assert await two.search_uids("ALL") == [3]
        await two.ok("select", "Trash")
        # The mark was for INBOX; new in Trash, seen first by this SELECT (RFC 3501 §2.3.2).
        assert await flags_by_uid(two) == {1: {"\\Recent"}, 2: {"\\Recent"}}
    statuses = [ok(await jianf.get(f"/api/v1/me/mail/{m['mail_id']}"))["status"] for m in mails]
    assert statuses == ["deleted", "deleted", "unread"]


async def test_keywords_past_their_limits_are_refused_whole(
    database_url: str, tmp_path: Path
) -> None:
    settings = {"imap_max_keywords_per_mail": 2, "imap_max_keyword_length": 8}
    async with running_gateway(database_url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            builder = await api.agent("builder")
            await agent_mails(builder, "one")
            async with imap_login(gateway, "jianf") as imap:
                await imap.ok("select", "INBOX")
                typ, data = await imap("uid", "STORE", "1", "+FLAGS", "($Label1 $Label2 $Label3)")
                assert typ == "NO" and b"at most 2 keywords" in data[0], data
                typ, data = await imap("uid", "STORE", "1", "+FLAGS", "($TooLongKeyword)")
                assert typ == "NO" and b"1 to 8 characters" in data[0], data
                assert await flags_by_uid(imap) == {1: {"\\Recent"}}  # nothing was changed
                await imap.uid("STORE", "1", "+FLAGS", "($Label1 $Label2)")
                assert await flags_by_uid(imap) == {1: {"$Label1", "$Label2", "\\Recent"}}
        finally:
            await api.close()

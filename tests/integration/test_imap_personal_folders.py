"""A human's own folders over IMAP: CREATE, RENAME, DELETE, SUBSCRIBE, MOVE and COPY
into them (RFC 3501 §6.3, RFC 6851), on both databases."""

from __future__ import annotations

import imaplib
import re

import pytest
from sqlalchemy import insert, select

from core.mailboxes.personal import MAX_SUBSCRIPTIONS
from core.store.models import ImapSubscription
from tests.integration.test_imap_mailboxes import agent_mails, listed
from tests.support.gateway import Api
from tests.support.imap import Imap, imap_login


async def uids_in(imap: Imap, name: str) -> list[int]:
    await imap.ok("select", f'"{name}"')
    return await imap.search_uids("ALL")


async def test_create_lists_selects_and_files_mail(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "Keep me", session_alias="keep")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Projects/2026"')
        await imap.ok("create", '"Receipts/"')  # RFC 3501 §6.3.3: the trailing delimiter is dropped
        folders = listed(await imap.ok("list", '""', '"*"'))
        assert folders["Projects"] == {"\\Noselect", "\\HasChildren"}
        assert folders["Projects/2026"] == {"\\HasNoChildren"}
        assert folders["Receipts"] == {"\\HasNoChildren"}
        [inbox_uid] = await uids_in(imap, "INBOX")
        await imap.uid("move", str(inbox_uid), '"Projects/2026"')
        assert await uids_in(imap, "INBOX") == []
        assert await uids_in(imap, "Projects/2026") == [1]
        assert await uids_in(imap, "Sessions/keep") == [1]  # the conversation's folder keeps it


async def test_rename_keeps_mail_and_uids_and_moves_inferiors(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "One")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Work"')
        await imap.ok("create", '"Work/Old"')
        await imap.ok("select", "INBOX")
        await imap.uid("move", "1", '"Work/Old"')
        [before] = await imap.ok("status", '"Work/Old"', "(UIDVALIDITY MESSAGES)")
        await imap.ok("rename", '"Work"', '"Job"')
        folders = listed(await imap.ok("list", '""', '"*"'))
        assert "Work" not in folders and "Work/Old" not in folders
        assert {"Job", "Job/Old"} <= set(folders)
        [after] = await imap.ok("status", '"Job/Old"', "(UIDVALIDITY MESSAGES)")
        assert before.replace(b"Work/Old", b"Job/Old") == after
        assert await uids_in(imap, "Job/Old") == [1]


async def test_delete_moves_mail_to_archive_and_keeps_inferiors(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "One")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Old"')
        await imap.ok("create", '"Old/Child"')
        await imap.ok("select", "INBOX")
        await imap.uid("move", "1", '"Old"')
        await imap.ok("unselect")
        await imap.ok("delete", '"Old"')  # RFC 3501 §6.3.4: its inferior stays
        folders = listed(await imap.ok("list", '""', '"*"'))
        assert folders["Old"] == {"\\Noselect", "\\HasChildren"}
        assert await uids_in(imap, "Archive") == [1]
        typ, data = await imap("delete", '"Old"')
        assert typ == "NO", data


@pytest.mark.parametrize(
    ("command", "args", "code"),
    [
        ("create", ['"INBOX"'], None),  # pymap's own refusal, without a code
        ("create", ['"Sent"'], b"ALREADYEXISTS"),
        ("create", ['"Sessions/mine"'], b"CANNOT"),
        ("create", ['"a//b"'], b"CANNOT"),
        ("create", ['"a*"'], b"CANNOT"),
        ("create", ['"' + "/".join("d" * 17) + '"'], b"LIMIT"),
        ("delete", ['"INBOX"'], None),  # pymap's own refusal, without a code
        ("delete", ['"Trash"'], b"CANNOT"),
        ("delete", ['"Nothing"'], b"NONEXISTENT"),
        ("rename", ['"Archive"', '"Old archive"'], b"CANNOT"),
        ("rename", ['"Nothing"', '"Else"'], b"NONEXISTENT"),
    ],
)
async def test_the_gateways_folders_and_bad_names_are_refused(
    api: Api, command: str, args: list[str], code: bytes | None
) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        typ, data = await imap(command, *args)
    assert typ == "NO", data
    if code is not None:
        assert re.match(rb"\[" + code + rb"\]", data[0]), data


async def test_create_twice_is_already_exists(api: Api) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Twice"')
        typ, data = await imap("create", '"Twice"')
    assert typ == "NO" and data[0].startswith(b"[ALREADYEXISTS]"), data


async def test_subscriptions_are_remembered_per_name(api: Api) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Lists"')  # RFC 3501 §6.3.3: not subscribed (as Dovecot)
        assert "Lists" not in listed(await imap.ok("lsub", '""', '"*"'))
        await imap.ok("subscribe", '"Lists"')
        assert "Lists" in listed(await imap.ok("lsub", '""', '"*"'))
        await imap.ok("unsubscribe", '"Lists"')
        assert "Lists" not in listed(await imap.ok("lsub", '""', '"*"'))
        await imap.ok("subscribe", '"Not yet made"')  # RFC 3501 §6.3.6: need not exist
        assert "Not yet made" in listed(await imap.ok("lsub", '""', '"*"'))
    async with imap_login(api.gateway, "jianf") as imap:
        subscribed = listed(await imap.ok("lsub", '""', '"*"'))
    assert "Lists" not in subscribed and "Not yet made" in subscribed and "INBOX" in subscribed


async def test_a_folder_made_elsewhere_counts_as_subscribed(api: Api) -> None:
    """A folder of the web UI or REST is in LSUB at once; one CREATE made is not, and
    the mark that says so goes with the folder when it is deleted, so that no more such
    marks are kept than there are folders."""
    jianf = await api.human("jianf")
    made = await jianf.post("/api/v1/me/folders", json={"name": "From the web"})
    assert made.status_code == 201, made.text
    store = api.gateway.store
    assert store is not None
    async with imap_login(api.gateway, "jianf") as imap:
        assert "From the web" in listed(await imap.ok("lsub", '""', '"*"'))
        for n in range(3):
            await imap.ok("create", f'"Made {n}"')
            await imap.ok("delete", f'"Made {n}"')
        await imap.ok("create", '"Kept"')
        assert "Kept" not in listed(await imap.ok("lsub", '""', '"*"'))
    rows = await store.read(
        lambda session: session.execute(
            select(ImapSubscription.name, ImapSubscription.subscribed)
        ).all()
    )
    assert [tuple(row) for row in rows] == [("Kept", False)], rows


async def test_each_human_has_their_own_folders(api: Api) -> None:
    await api.human("jianf")
    await api.human("ana")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", '"Private"')
    async with imap_login(api.gateway, "ana") as imap:
        assert "Private" not in listed(await imap.ok("list", '""', '"*"'))
        await imap.ok("create", '"Private"')  # the same name, her own


async def test_subscriptions_are_bounded(api: Api) -> None:
    await api.human("jianf")
    store = api.gateway.store
    assert store is not None

    rows = [
        {"owner": "jianf", "name": f"name {n}", "subscribed": True}
        for n in range(MAX_SUBSCRIPTIONS)
    ]
    await store.write(lambda session: session.execute(insert(ImapSubscription), rows))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("unsubscribe", '"name 7"')  # a name remembered already: changed
        typ, data = await imap("subscribe", '"one more"')
    assert typ == "NO" and data[0].startswith(b"[LIMIT]"), data


async def test_a_session_whose_folder_is_deleted_elsewhere_is_told(api: Api) -> None:
    """As Dovecot: the session that had it selected is disconnected with a `* BYE`."""
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "x")
    async with imap_login(api.gateway, "jianf") as one, imap_login(api.gateway, "jianf") as two:
        await one.ok("create", "Doomed")
        await one.ok("select", "INBOX")
        await one.uid("move", "1", "Doomed")
        await one.ok("select", "Doomed")
        await two.ok("delete", "Doomed")
        with pytest.raises(imaplib.IMAP4.abort, match="no longer exists"):
            await one("noop")


@pytest.mark.parametrize("folder", ["INBOX", "Mine"])
async def test_move_into_the_folder_itself_renumbers(api: Api, folder: str) -> None:
    """RFC 6851 §3.3, as Dovecot: a new UID, the old one expunged, the flags kept."""
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "again")
    async with imap_login(api.gateway, "jianf") as imap:
        if folder != "INBOX":
            await imap.ok("create", folder)
            await imap.ok("select", "INBOX")
            await imap.uid("move", "1", folder)
        await imap.ok("select", folder)
        [uid] = await imap.search_uids("ALL")
        await imap.uid("store", str(uid), "+FLAGS", "(\\Flagged)")
        typ, data = await imap("uid", "MOVE", str(uid), folder)
        assert typ == "OK", data
        _, [copyuid] = imap.client.response("COPYUID")  # RFC 4315: source UIDs, new UIDs
        assert copyuid.split()[1:] == [b"%d" % uid, b"%d" % (uid + 1)], copyuid
        assert await imap.search_uids("ALL") == [uid + 1]
        assert await imap.search_uids("FLAGGED") == [uid + 1]


async def test_list_subscribed_names_a_subscribed_name_that_does_not_exist(api: Api) -> None:
    """RFC 5258 §3: `\\NonExistent` (and `\\Subscribed`), as Dovecot (imaptest's listext)."""
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", "Gone")
        await imap.ok("subscribe", "Gone")
        await imap.ok("delete", "Gone")
        typ, _ = await imap("xatom", "LIST", '(SUBSCRIBED) "" "*"')
        lines = imap.client.untagged_responses.pop("LIST", [])
    assert typ == "OK"
    assert b'(\\NonExistent \\Subscribed) "/" Gone' in lines, lines

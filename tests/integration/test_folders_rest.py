"""A human's own folders over REST (`/me/folders`, `POST /me/mail/{id}/file`): the same
folders and the same placement IMAP shows, on both databases."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.test_imap_mailboxes import agent_mails, listed
from tests.support.gateway import Api
from tests.support.http import ok, refused
from tests.support.imap import imap_login

FOLDERS = "/api/v1/me/folders"


def created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_folders_are_made_filled_renamed_and_deleted(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mail = await agent_mails(builder, "Receipt")
    made = await jianf.post(FOLDERS, json={"name": "Money/Receipts"})
    assert made.status_code == 201, made.text
    folder = made.json()
    assert folder | {"folder_id": ""} == {"folder_id": "", "name": "Money/Receipts",
                                         "messages": 0, "unread": 0}  # fmt: skip
    filed = ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/file",
                                json={"folder_id": folder["folder_id"]}))  # fmt: skip
    assert filed == {"mail_id": mail["mail_id"], "folder_id": folder["folder_id"]}
    [listed_folder] = ok(await jianf.get(FOLDERS))["folders"]
    assert (listed_folder["messages"], listed_folder["unread"]) == (1, 1)
    inside = ok(await jianf.get(f"/api/v1/me/mail/inbox?folder_id={folder['folder_id']}"))
    assert [m["mail_id"] for m in inside["mails"]] == [mail["mail_id"]]
    assert inside["mails"][0]["folder_id"] == folder["folder_id"]
    assert ok(await jianf.get("/api/v1/me/mail/inbox?status=archived"))["total"] == 0
    assert ok(await jianf.get("/api/v1/me/mail/inbox?status=unread"))["total"] == 0
    async with imap_login(api.gateway, "jianf") as imap:
        assert "Money/Receipts" in listed(await imap.ok("list", '""', '"*"'))
        await imap.ok("select", '"Money/Receipts"')
        assert await imap.search_uids("ALL") == [1]
    # Trash and back: the mail returns to its folder.
    ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/delete"))
    ok(await jianf.post(f"/api/v1/me/mail/{mail['mail_id']}/restore"))
    assert (
        ok(await jianf.get(f"/api/v1/me/mail/{mail['mail_id']}"))["folder_id"]
        == folder["folder_id"]
    )
    renamed = ok(await jianf.patch(f"{FOLDERS}/{folder['folder_id']}", json={"name": "Paid"}))
    assert renamed["name"] == "Paid" and renamed["messages"] == 1
    gone = ok(await jianf.delete(f"{FOLDERS}/{folder['folder_id']}"))
    assert gone == {"folder_id": folder["folder_id"], "moved_to_archive": 1}
    archived = ok(await jianf.get("/api/v1/me/mail/inbox?status=archived"))
    assert [m["mail_id"] for m in archived["mails"]] == [mail["mail_id"]]
    assert archived["mails"][0]["folder_id"] is None


async def test_bad_names_and_someone_elses_folder_are_refused(api: Api) -> None:
    jianf = await api.human("jianf")
    ana = await api.human("ana")
    builder = await api.agent("builder")
    mail = await agent_mails(builder, "Mine")
    folder = created(await jianf.post(FOLDERS, json={"name": "Private"}))
    refused(await jianf.post(FOLDERS, json={"name": "Private"}), 409, "name_taken")
    refused(await jianf.post(FOLDERS, json={"name": "Trash"}), 409, "name_taken")
    refused(await jianf.post(FOLDERS, json={"name": "a//b"}), 422, "invalid_request")
    refused(await jianf.post(FOLDERS, json={"name": "Sessions/x"}), 422, "invalid_request")
    refused(await jianf.post(FOLDERS, json={"name": "x" * 256}), 422, "limit_reached")
    refused(await jianf.post(FOLDERS, json={"name": ""}), 422, "invalid_request")
    refused(
        await ana.patch(f"{FOLDERS}/{folder['folder_id']}", json={"name": "Hers"}), 404, "not_found"
    )
    refused(await ana.delete(f"{FOLDERS}/{folder['folder_id']}"), 404, "not_found")
    refused(
        await ana.get(f"/api/v1/me/mail/inbox?folder_id={folder['folder_id']}"), 404, "not_found"
    )
    mine = created(await ana.post(FOLDERS, json={"name": "Hers"}))
    refused(
        await jianf.post(
            f"/api/v1/me/mail/{mail['mail_id']}/file", json={"folder_id": mine["folder_id"]}
        ),
        404,
        "not_found",
    )
    assert ok(await ana.get(FOLDERS))["folders"] == [mine]

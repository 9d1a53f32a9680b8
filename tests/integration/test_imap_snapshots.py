"""A kept folder state brought up to date by mod-sequence equals the folder read whole
(core/mailboxes/snapshots.py: what SELECT and a QRESYNC resync start from)."""

from __future__ import annotations

import asyncio

from imapclient import IMAPClient

from core.mailboxes.contents import folder_state
from core.mailboxes.folders import list_folders
from core.mailboxes.snapshots import FolderSnapshots
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok


async def test_a_kept_state_plus_its_changes_is_the_folder_now(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")

    async def send(subject: str) -> str:
        body = {"to": "jianf@", "subject": subject, "body": "hi"}
        return str(ok(await builder.post("/api/v1/mail/send", json=body))["mail_id"])

    ids = [await send(f"m{i}") for i in range(8)]
    store = api.gateway.store
    assert store is not None
    [inbox] = [f for f in await list_folders(store, "jianf") if f.key == "inbox"]
    snapshots = FolderSnapshots()
    first = await snapshots.state(store, "jianf", inbox)  # read whole, kept
    assert [m.uid for m in first.messages] == list(range(1, 9))

    unchanged = await snapshots.state(store, "jianf", inbox)
    assert unchanged == await folder_state(store, "jianf", inbox)

    ids += [await send("late")]  # enters (UID 9)
    ok(await jianf.post(f"/api/v1/me/mail/{ids[0]}/read"))  # a flag over REST
    ok(await jianf.post(f"/api/v1/me/mail/{ids[1]}/delete"))  # leaves

    def other_session() -> None:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as client:
            client.login("jianf", PASSWORD)
            client.select_folder("INBOX")
            client.add_flags([3], [b"\\Flagged", b"$Label1"])  # a flag and a keyword
            client.move([4], "Archive")  # leaves

    await asyncio.to_thread(other_session)
    merged = await snapshots.state(store, "jianf", inbox)
    whole = await folder_state(store, "jianf", inbox)
    assert merged == whole
    assert [m.uid for m in merged.messages] == [1, 3, 5, 6, 7, 8, 9]
    assert "$Label1" in merged.keywords and merged.highest_modseq > first.highest_modseq

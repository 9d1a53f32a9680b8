"""The store operations of the mailbox state (core/mailboxes), run the same way on SQLite
and PostgreSQL, in process, as the IMAP view makes them (imap_view/writes.py,
imap_view/append.py, imap_view/login.py, imap_view/mailbox_set.py) and the gateway's
prune job: folders made at login, flags and keywords stored, moves and copies between
INBOX, Archive and Trash, expunges, drafts appended and expunged, expunge records
pruned, a person's own folders made, renamed and deleted, messages filed by APPEND, and
`\\Recent` claimed by SELECT.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from core.archive.filed import FiledFlags, Filing, file_messages
from core.mail.draft_messages import append_draft
from core.mail.placing import file_in_folder, set_delivery_state
from core.mail.reading import inbox
from core.mailboxes.drafts import delete_drafts
from core.mailboxes.expunged import prune_expunged
from core.mailboxes.folders import ensure_folders, list_folders
from core.mailboxes.keywords import Keeping, KeywordLimits
from core.mailboxes.own_folders import create_own_folder, delete_own_folder, rename_own_folder
from core.mailboxes.personal import create_folder, delete_folder, rename_folder, set_subscribed
from core.mailboxes.placement import change_placement, hide_in_trash, set_flags, unmark
from core.mailboxes.recent import Claimed, claim_recent
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from tests.contract.scenario import (
    ANA,
    BUILDER,
    D,
    Scenario,
    assert_same_rows,
    mail_ids,
    mail_seqs,
    send,
)
from tests.support.two_stores import Stores

# The state a mail takes when IMAP puts it into INBOX, Archive or Trash (imap_view/writes.py).
INBOX = {"archived": False, "deleted": False}
ARCHIVE = {"archived": True, "deleted": False}
TRASH = {"deleted": True}


async def _mails_to_ana(store: Store, count: int) -> list[int]:
    for n in range(count):
        await send(store, BUILDER, "ana@", f"mail {n}")
    return await mail_seqs(store)


async def _store_flags(
    store: Store,
    changes: dict[tuple[str, bool], list[int]],
    added: dict[str, list[int]] | None = None,
    removed: dict[str, list[int]] | None = None,
    keeping: Keeping | None = None,
) -> None:
    """IMAP's STORE of ana's: flags set or cleared, keywords added or removed (or, for
    `STORE … FLAGS`, all but those it lists)."""

    def write(session: Session) -> None:
        limits = KeywordLimits()
        set_flags(
            session, "ana", changes, added=added, removed=removed, keeping=keeping, limits=limits
        )

    await store.write(write)


async def _place(store: Store, seqs: Sequence[int], state: dict[str, Any]) -> None:
    """IMAP's MOVE or COPY of ana's mails into INBOX, Archive or Trash."""
    await store.write(lambda session: change_placement(session, "ana", seqs, **state))


async def imap_flags(store: Store) -> None:
    """Folders made at login (once); STORE of flags and keywords, FETCH without PEEK
    (\\Seen), and inboxes listed with `mark_read` (REST) by a human and an agent."""
    seqs = await _mails_to_ana(store, 4)
    await send(store, ANA, "builder@ws", "to builder")
    for _ in range(2):  # the second login finds every folder there
        await ensure_folders(store, "ana")
    await ensure_folders(store, "bo")
    two = seqs[:2]
    await _store_flags(store, {("flagged", True): two, ("answered", True): two}, {"$label1": two})
    await _store_flags(store, {("flagged", False): two[:1]}, removed={"$label1": two[:1]})
    await _store_flags(store, {("seen", True): seqs[2:3]})  # BODY[] without PEEK
    await _store_flags(store, {}, {"$junk": seqs[:3], "$label2": seqs[1:3]})
    # `STORE 1:3 FLAGS (\Seen $label2)`: of the keywords only $label2 stays; then none.
    await _store_flags(
        store,
        {(flag, flag == "seen"): seqs[:3] for flag in ("seen", "flagged", "answered")},
        {"$label2": seqs[:3]},
        keeping=Keeping(seqs[:3], frozenset({"$label2"})),
    )
    await _store_flags(store, {}, keeping=Keeping(seqs[1:2], frozenset()))
    await inbox(store, D, ANA, status="unread", mark_read=True, limit=1)
    await inbox(store, D, BUILDER, mark_read=True)


async def imap_moves(store: Store) -> None:
    """MOVE INBOX → Archive and back, COPY from a conversation's folder to Trash,
    EXPUNGE in INBOX (to Trash) and in Trash (hidden from IMAP), a restore on the web;
    then the expunge records are pruned."""
    seqs = await _mails_to_ana(store, 5)
    await _place(store, seqs[:2], ARCHIVE)
    await _place(store, seqs[1:2], INBOX)
    await _place(store, seqs[2:3], TRASH)  # a COPY: it stays in its conversation's folder
    await _store_flags(store, {("deleted", True): seqs[2:4]})

    def expunge_inbox(session: Session) -> None:
        change_placement(session, "ana", seqs[3:4], deleted=True)
        unmark(session, "ana", seqs[3:4])

    await store.write(expunge_inbox)
    await store.write(lambda session: unmark(session, "ana", seqs[2:3]))  # a COPY's session
    await store.write(lambda session: hide_in_trash(session, "ana", seqs[2:4]))
    await set_delivery_state(store, ANA, (await mail_ids(store))[3], deleted=False)
    assert await prune_expunged(store, timedelta(seconds=-1)) > 0  # older than any retention


def _draft(message_id: str, subject: str, body: str) -> bytes:
    return (
        f"From: ana@{D}\r\nTo: builder+ws@{D}\r\nCc: bo@{D}\r\nSubject: {subject}\r\n"
        f"Message-ID: {message_id}\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


async def imap_drafts(store: Store) -> None:
    """A client APPENDs drafts to Drafts (a new version replaces the one with its
    Message-ID), EXPUNGEs one and MOVEs the other to Trash (both delete the draft);
    one stays."""
    await append_draft(store, D, "ana", _draft("<d1@c>", "plan", "first words"))
    kept = await append_draft(store, D, "ana", _draft("<d1@c>", "plan", "more words"))
    other = await append_draft(store, D, "ana", _draft("<d2@c>", "other", "x"))
    assert await delete_drafts(store, "ana", [other]) == 1
    assert await delete_drafts(store, "ana", [other]) == 0  # gone already
    assert await delete_drafts(store, "ana", [kept]) == 1
    await append_draft(store, D, "ana", _draft("<d3@c>", "stays", "for later"))


async def own_folders(store: Store) -> None:
    """A person makes folders (nested), files mail in them by MOVE and by APPEND (one
    MULTIAPPEND with flags and keywords), renames one with its inferior, unsubscribes
    one, deletes one (its mail to Archive) and trashes a filed mail."""
    seqs = await _mails_to_ana(store, 3)
    await ensure_folders(store, "ana")
    work = await store.write(lambda session: create_folder(session, "ana", "Work"))
    await store.write(lambda session: create_folder(session, "ana", "Work/Old"))
    await store.write(lambda session: create_folder(session, "ana", "Receipts"))
    await _place(store, seqs[:2], {"archived": True, "deleted": False, "folder": work.key})
    with tempfile.TemporaryDirectory() as blobs:
        await file_messages(
            store,
            FileBlobs(Path(blobs)),
            "ana",
            D,
            work.key,
            [
                Filing(_draft("<f1@c>", "filed", "kept as given"), FiledFlags(seen=True)),
                Filing(_draft("<f2@c>", "also", "x"), FiledFlags(keywords=("$Label1",))),
            ],
            max_attachment_bytes=1 << 20,
            keyword_limits=KeywordLimits(),
        )
    await store.write(lambda session: rename_folder(session, "ana", "Work", "Job"))
    await store.write(lambda session: set_subscribed(session, "ana", "Receipts", False))
    await store.write(lambda session: set_subscribed(session, "ana", "Later", True))
    await _place(store, seqs[1:2], TRASH)
    await store.write(lambda session: delete_folder(session, "ana", "Job"))


async def own_folders_on_the_web(store: Store) -> None:
    """The web UI makes, fills, renames and deletes a folder by its id."""
    mail_id = await send(store, BUILDER, "ana@", "to file")
    folder = await create_own_folder(store, ANA, "Web/Made")
    await file_in_folder(store, ANA, mail_id, folder.folder_id)
    await rename_own_folder(store, ANA, folder.folder_id, "Web/Renamed")
    assert (await delete_own_folder(store, ANA, folder.folder_id)).moved_to_archive == 1


async def imap_recent(store: Store) -> None:
    """Sessions claim INBOX's `\\Recent` messages (imap_view/recent.py): the first claims
    what it sees, the next ones nothing of that, a later one only what came since."""
    await _mails_to_ana(store, 3)
    inbox_id = next(f.id for f in await list_folders(store, "ana") if f.key == "inbox")
    assert await claim_recent(store, "ana", inbox_id, 2) == Claimed(0, 2)
    assert await claim_recent(store, "ana", inbox_id, 2) == Claimed(2, 2)
    assert await claim_recent(store, "ana", inbox_id, 1) == Claimed(2, 2)  # saw less
    assert await claim_recent(store, "ana", inbox_id, 3) == Claimed(2, 3)
    assert await claim_recent(store, "bo", inbox_id, 9) == Claimed(9, 9)  # not bo's folder


SCENARIOS: list[Scenario] = [
    imap_flags,
    imap_moves,
    imap_drafts,
    own_folders,
    own_folders_on_the_web,
    imap_recent,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_both_backends_leave_the_same_rows(stores: Stores, scenario: Scenario) -> None:
    await assert_same_rows(stores, scenario)

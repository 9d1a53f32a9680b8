"""The human's folders as pymap's mailbox set: names, SPECIAL-USE, LIST, finding a folder.

Names (ARCHITECTURE.md "IMAP"): INBOX, Sent, Drafts, Archive, Trash, "Needs
decision", and `Sessions/<alias>` (`Sessions/<short id>` while unnamed) for each
conversation; and the human's own folders (core/mailboxes/personal.py), which CREATE,
RENAME and DELETE make, rename and remove — the others are the gateway's and refuse
them. A folder is found again by its id, never its name, so a selected folder
survives a rename. SUBSCRIBE and UNSUBSCRIBE are remembered per name; a folder
nobody said anything of counts as subscribed, but one made by CREATE starts
unsubscribed (RFC 3501 §6.3.3, as Dovecot: core/mailboxes/personal.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pymap.backend.mailbox import MailboxSetInterface
from pymap.listtree import ListTree
from pymap.parsing.specials import ObjectId
from sqlalchemy.orm import Session

from core.errors import DomainError
from core.mailboxes.folder_names import DELIMITER, FIXED_NAMES, SESSIONS
from core.mailboxes.folders import FolderInfo, folder_by_id, list_folders
from core.mailboxes.personal import (
    create_folder,
    delete_folder,
    rename_folder,
    set_subscribed,
    subscriptions,
)
from imap_view.backend import Backend
from imap_view.freshness import Freshness
from imap_view.list_patterns import PatternListTree
from imap_view.list_subscribed import SubscribedListTree
from imap_view.mailbox import MailboxData, folder_id_of, mailbox_id
from imap_view.replies import refusal_for

__all__ = ["SPECIAL_USE", "MailboxSet", "folder_name"]

T = TypeVar("T")
# RFC 6154 §2: the attributes clients use to find these folders whatever their names.
SPECIAL_USE = {"Sent": b"Sent", "Drafts": b"Drafts", "Archive": b"Archive", "Trash": b"Trash"}


def folder_name(folder: FolderInfo) -> str:
    if folder.name is not None:
        return folder.name
    conversation = folder.conversation_id
    if conversation is None:
        return FIXED_NAMES.get(folder.key, folder.key)
    return f"{SESSIONS}{DELIMITER}{folder.alias or conversation[:8]}"


class MailboxSet(MailboxSetInterface["MailboxData"]):
    """pymap's MailboxSetInterface over the human's folders."""

    def __init__(self, owner: str, backend: Backend, freshness: Freshness) -> None:
        self.owner = owner
        self._backend = backend
        self._freshness = freshness

    @property
    def delimiter(self) -> str:
        return DELIMITER

    async def folders(self) -> dict[str, FolderInfo]:
        """Read again only once something was committed for the owner: a new folder
        (a conversation) or a rename comes with a wake-up (imap_view/freshness.py)."""
        store, owner = self._backend.store, self.owner

        async def read() -> dict[str, FolderInfo]:
            return {folder_name(folder): folder for folder in await list_folders(store, owner)}

        return await self._freshness.read("folders", read)

    async def list_mailboxes(self) -> ListTree:
        return PatternListTree(DELIMITER).update(*await self.folders())

    async def subscribed_names(self) -> set[str]:
        """Every folder nobody unsubscribed, and every name SUBSCRIBE named."""
        store, owner = self._backend.store, self.owner

        async def read() -> dict[str, bool]:
            return await store.read(lambda session: subscriptions(session, owner))

        said = await self._freshness.read("subscriptions", read)
        existing = {name for name in await self.folders() if said.get(name, True)}
        return existing | {name for name, subscribed in said.items() if subscribed}

    async def list_subscribed(self) -> ListTree:
        return SubscribedListTree(DELIMITER).update(*sorted(await self.subscribed_names()))

    async def set_subscribed(self, name: str, subscribed: bool) -> None:
        await self._write(lambda session: set_subscribed(session, self.owner, name, subscribed))

    async def get_mailbox(self, name: str) -> MailboxData:
        """Raises KeyError for an unknown name (pymap answers NO [NONEXISTENT])."""
        folders = await self.folders()
        folder = folders["INBOX"] if name.upper() == "INBOX" else folders[name]
        return self._mailbox(folder)

    async def get_by_id(self, object_id: ObjectId) -> MailboxData:
        """The selected mailbox, on every command: one row, whatever the number of folders."""
        folder = await folder_by_id(self._backend.store, self.owner, folder_id_of(object_id))
        if folder is None:
            raise KeyError(object_id)
        return self._mailbox(folder)

    def _mailbox(self, folder: FolderInfo) -> MailboxData:
        return MailboxData(folder, self.owner, self._backend, self._freshness)

    async def add_mailbox(self, name: str) -> ObjectId:
        """RFC 3501 §6.3.3 CREATE: a folder of the human's own, not subscribed (the
        client SUBSCRIBEs it if it wants it in LSUB, as with Dovecot)."""
        created = await self._write(
            lambda session: create_folder(session, self.owner, name, subscribed=False)
        )
        return mailbox_id(created.id)

    async def delete_mailbox(self, name: str) -> None:
        """RFC 3501 §6.3.4 DELETE: its mail goes to Archive (core/mailboxes/personal.py)."""
        await self._write(lambda session: delete_folder(session, self.owner, name))

    async def rename_mailbox(self, before: str, after: str) -> None:
        """RFC 3501 §6.3.5 RENAME, inferiors with it."""
        await self._write(lambda session: rename_folder(session, self.owner, before, after))

    async def _write(self, write: Callable[[Session], T]) -> T:
        """A folder change; a domain refusal is a `NO` with its RFC 5530 code."""
        try:
            return await self._backend.store.write(write)
        except DomainError as exc:
            raise refusal_for(exc) from exc

"""The human's folders as pymap's mailbox set: names, SPECIAL-USE, LIST, finding a folder.

Names (ARCHITECTURE.md "IMAP"): INBOX, Sent, Drafts, Archive, Trash, "Needs
decision", and `Sessions/<alias>` (`Sessions/<short id>` while unnamed) for each
conversation. A folder is found again by its id, never its name, so a selected
conversation folder survives a rename. Folders are views of the store: they are
not created, renamed or deleted over IMAP.
"""

from __future__ import annotations

from pymap.backend.mailbox import MailboxSetInterface
from pymap.exceptions import NotAllowedError
from pymap.listtree import ListTree
from pymap.parsing.specials import ObjectId

from core.mailboxes.folders import FolderInfo, folder_by_id, list_folders
from core.mailboxes.uids import ARCHIVE, DECISION, DRAFTS, INBOX, SENT, TRASH
from imap_view.backend import Backend
from imap_view.freshness import Freshness
from imap_view.list_patterns import PatternListTree
from imap_view.mailbox import MailboxData, folder_id_of

__all__ = ["SPECIAL_USE", "MailboxSet", "folder_name"]

DELIMITER = "/"
SESSIONS = "Sessions"
FIXED_NAMES = {
    INBOX: "INBOX",
    SENT: "Sent",
    DRAFTS: "Drafts",
    ARCHIVE: "Archive",
    TRASH: "Trash",
    DECISION: "Needs decision",
}
# RFC 6154 §2: the attributes clients use to find these folders whatever their names.
SPECIAL_USE = {"Sent": b"Sent", "Drafts": b"Drafts", "Archive": b"Archive", "Trash": b"Trash"}
READ_ONLY_REASON = "folders are views of the store: they cannot be created, renamed or deleted"


def folder_name(folder: FolderInfo) -> str:
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

    async def list_subscribed(self) -> ListTree:
        return await self.list_mailboxes()  # every folder counts as subscribed

    async def set_subscribed(self, name: str, subscribed: bool) -> None:
        pass

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
        raise NotAllowedError(READ_ONLY_REASON)

    async def delete_mailbox(self, name: str) -> None:
        raise NotAllowedError(READ_ONLY_REASON)

    async def rename_mailbox(self, before: str, after: str) -> None:
        raise NotAllowedError(READ_ONLY_REASON)

"""A human's own folders under `/me/folders`, and filing a mail in one: what IMAP's
CREATE, RENAME, DELETE and MOVE do, for the web UI and REST clients."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Human, StoreDep
from core.mail.placing import file_in_folder
from core.mailboxes import own_folders
from core.views import FolderDeleted, FolderList, FolderView

router = APIRouter(tags=["my folders"])


class FolderName(BaseModel):
    name: str = Field(
        min_length=1,
        max_length=1024,
        description="Levels separated by `/` (`Projects/2026`): no empty level, control "
        "character, `*` or `%`; at most 16 levels of 255 characters.",
    )


class Filing(BaseModel):
    folder_id: str = Field(min_length=1, max_length=64)


class Filed(BaseModel):
    mail_id: str
    folder_id: str


@router.get("/me/folders")
async def list_folders(caller: Human, store: StoreDep) -> FolderList:
    """Your folders, by name, each with its mails (not in Trash) and unread ones."""
    return await own_folders.list_own_folders(store, caller)


@router.post("/me/folders", status_code=201)
async def create(body: FolderName, caller: Human, store: StoreDep) -> FolderView:
    return await own_folders.create_own_folder(store, caller, body.name)


@router.patch("/me/folders/{folder_id}")
async def rename(folder_id: str, body: FolderName, caller: Human, store: StoreDep) -> FolderView:
    """A new name; folders inside it move along, its mail stays."""
    return await own_folders.rename_own_folder(store, caller, folder_id, body.name)


@router.delete("/me/folders/{folder_id}")
async def delete(folder_id: str, caller: Human, store: StoreDep) -> FolderDeleted:
    """The folder goes; its mail goes to Archive (nothing is destroyed)."""
    return await own_folders.delete_own_folder(store, caller, folder_id)


@router.post("/me/mail/{mail_id}/file")
async def file(mail_id: str, body: Filing, caller: Human, store: StoreDep) -> Filed:
    """File a mail you received in a folder of yours (out of INBOX, Archive or Trash)."""
    await file_in_folder(store, caller, mail_id, body.folder_id)
    return Filed(mail_id=mail_id, folder_id=body.folder_id)

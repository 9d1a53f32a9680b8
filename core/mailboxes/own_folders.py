"""A person's own folders as the web UI and REST see them: listed with their counts,
created, renamed and deleted by id (the same changes IMAP's CREATE, RENAME and DELETE
make: core/mailboxes/personal.py).

A folder's public id is its key without the `folder:` prefix: stable across renames,
and nothing anyone else could guess or use (a folder of someone else's is not found).
"""

from __future__ import annotations

from sqlalchemy import and_, case, false, func, select
from sqlalchemy.orm import Session

from core.errors import Forbidden, NotFound
from core.mailboxes.personal import (
    PERSONAL_PREFIX,
    PersonalFolder,
    create_folder,
    delete_folder,
    personal_folder,
    personal_folders,
    rename_folder,
)
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Delivery
from core.views import FolderDeleted, FolderList, FolderView

__all__ = [
    "create_own_folder",
    "delete_own_folder",
    "folder_key_of",
    "list_own_folders",
    "public_id",
    "rename_own_folder",
]


def public_id(key: str) -> str | None:
    """The id REST shows for a delivery's folder key (None: not a personal folder)."""
    return key[len(PERSONAL_PREFIX) :] if key.startswith(PERSONAL_PREFIX) else None


def folder_key_of(folder_id: str) -> str:
    return PERSONAL_PREFIX + folder_id


def _human(principal: Principal) -> str:
    if not principal.is_human:
        raise Forbidden("only humans have folders: an agent reads its inbox")
    return principal.name


def _find(session: Session, owner: str, folder_id: str) -> PersonalFolder:
    folder = personal_folder(session, owner, folder_key_of(folder_id))
    if folder is None:
        raise NotFound(f"no folder {folder_id}")
    return folder


def _views(session: Session, owner: str, folders: list[PersonalFolder]) -> list[FolderView]:
    """Each folder with its mails (not in Trash) and the unread ones among them."""
    keys = [folder.key for folder in folders]
    counts: dict[str, tuple[int, int]] = {}
    if keys:
        rows = session.execute(
            select(
                Delivery.folder,
                func.count(),
                func.count(case((Delivery.is_read == false(), 1))),
            )
            .where(
                and_(Delivery.recipient == owner, Delivery.deleted == false()),
                Delivery.folder.in_(keys),
            )
            .group_by(Delivery.folder)
        )
        counts = {str(row[0]): (int(row[1]), int(row[2])) for row in rows}
    return [
        FolderView(
            folder_id=folder.key[len(PERSONAL_PREFIX) :],
            name=folder.name,
            messages=counts.get(folder.key, (0, 0))[0],
            unread=counts.get(folder.key, (0, 0))[1],
        )
        for folder in folders
    ]


async def list_own_folders(store: Store, principal: Principal) -> FolderList:
    owner = _human(principal)

    def run(session: Session) -> FolderList:
        return FolderList(folders=_views(session, owner, personal_folders(session, owner)))

    return await store.read(run)


async def create_own_folder(store: Store, principal: Principal, name: str) -> FolderView:
    owner = _human(principal)

    def run(session: Session) -> FolderView:
        return _views(session, owner, [create_folder(session, owner, name)])[0]

    return await store.write(run)


async def rename_own_folder(
    store: Store, principal: Principal, folder_id: str, name: str
) -> FolderView:
    owner = _human(principal)

    def run(session: Session) -> FolderView:
        folder = _find(session, owner, folder_id)
        return _views(session, owner, [rename_folder(session, owner, folder.name, name)])[0]

    return await store.write(run)


async def delete_own_folder(store: Store, principal: Principal, folder_id: str) -> FolderDeleted:
    owner = _human(principal)

    def run(session: Session) -> FolderDeleted:
        folder = _find(session, owner, folder_id)
        moved = delete_folder(session, owner, folder.name)
        return FolderDeleted(folder_id=folder_id, moved_to_archive=moved)

    return await store.write(run)

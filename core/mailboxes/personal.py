"""A human's own folders: created, renamed and deleted by IMAP, the web UI and REST alike.

A personal folder is an `imap_folders` row with a name (core/mailboxes/folder_names.py)
and a key of its own (`folder:<id>`), so mail filed in it (`deliveries.folder`,
core/mailboxes/placement.py) follows a rename. Its parents need not exist: a name's
missing parents are listed as `\\Noselect` (RFC 3501 §6.3.3 lets a server create
them; it need not). Deleting a folder destroys nothing: its mail goes to Archive
(and mail of it in Trash is restored to Archive from then on). A folder with
inferiors may be deleted (RFC 3501 §6.3.4): its name then stays as a `\\Noselect`
parent of the inferiors.

Subscriptions (RFC 3501 §6.3.6/§6.3.7) are what SUBSCRIBE and UNSUBSCRIBE said of a
name, kept whether or not the name exists; a folder nobody said anything of
counts as subscribed, so clients that list only subscribed folders see every one.
A folder made by IMAP's CREATE starts unsubscribed instead (RFC 3501 §6.3.3
subscribes nothing; Dovecot neither), unless its name was said of before; that mark
is forgotten when the folder is deleted (an absent name is unsubscribed anyway), so
such marks are never more than the folders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from core.errors import FieldProblem, InvalidRequest, LimitReached, NameTaken, NotFound
from core.mailboxes.folder_names import (
    DELIMITER,
    FIXED_NAMES,
    MAX_WIRE_OCTETS,
    SESSIONS,
    personal_name,
)
from core.mailboxes.uids import ARCHIVE, refile_mails, uid_validity_now
from core.store.engine import wake_after_commit
from core.store.models import Delivery, ImapFolder, ImapSubscription, new_id
from core.store.port import backend_of

__all__ = [
    "MAX_FOLDERS",
    "MAX_SUBSCRIPTIONS",
    "PERSONAL_PREFIX",
    "PersonalFolder",
    "create_folder",
    "delete_folder",
    "is_personal",
    "personal_folder",
    "personal_folders",
    "rename_folder",
    "set_subscribed",
    "subscriptions",
]

PERSONAL_PREFIX: Final = "folder:"
MAX_FOLDERS: Final = 1000  # a person's own folders
MAX_SUBSCRIPTIONS: Final = 2000  # names a person said SUBSCRIBE or UNSUBSCRIBE of


@dataclass(frozen=True, slots=True)
class PersonalFolder:
    id: int
    key: str
    name: str


def is_personal(key: str) -> bool:
    return key.startswith(PERSONAL_PREFIX)


def personal_folders(session: Session, owner: str) -> list[PersonalFolder]:
    """The owner's own folders, by name."""
    rows = session.execute(
        select(ImapFolder.id, ImapFolder.key, ImapFolder.name)
        .where(ImapFolder.owner == owner, ImapFolder.name.is_not(None))
        .order_by(ImapFolder.name)
    ).all()
    return [PersonalFolder(int(row.id), row.key, row.name) for row in rows]


def personal_folder(session: Session, owner: str, key: str) -> PersonalFolder | None:
    """The owner's own folder with this key, if there is one."""
    row = session.execute(
        select(ImapFolder.id, ImapFolder.key, ImapFolder.name).where(
            ImapFolder.owner == owner, ImapFolder.key == key, ImapFolder.name.is_not(None)
        )
    ).first()
    return None if row is None else PersonalFolder(int(row.id), row.key, row.name)


def _by_name(session: Session, owner: str, name: str) -> PersonalFolder:
    """The owner's folder called `name` (as a client wrote it)."""
    if _is_gateway_name(name):
        raise InvalidRequest(
            f"{name!r} is one of the gateway's folders: it cannot be renamed or deleted"
        )
    name = personal_name(name)
    row = session.execute(
        select(ImapFolder.id, ImapFolder.key, ImapFolder.name).where(
            ImapFolder.owner == owner, ImapFolder.name == name
        )
    ).first()
    if row is None:
        raise NotFound(f"no folder {name!r}")
    return PersonalFolder(int(row.id), row.key, row.name)


def _is_gateway_name(name: str) -> bool:
    first = name.split(DELIMITER)[0]
    return first.casefold() == SESSIONS.casefold() or name.casefold() in _FIXED


_FIXED: Final = frozenset(fixed.casefold() for fixed in FIXED_NAMES.values())
_NAME_TAKEN: Final = FieldProblem("name", "taken")  # the folder requests' `name`


def create_folder(
    session: Session, owner: str, name: str, *, subscribed: bool = True
) -> PersonalFolder:
    """A new folder; NameTaken when the name is in use, LimitReached past MAX_FOLDERS.
    With `subscribed=False` (IMAP's CREATE) it counts as unsubscribed unless its name
    was SUBSCRIBEd or UNSUBSCRIBEd before."""
    name = personal_name(name)
    count = session.scalar(
        select(func.count()).where(ImapFolder.owner == owner, ImapFolder.name.is_not(None))
    )
    if (count or 0) >= MAX_FOLDERS:
        raise LimitReached(f"you have {MAX_FOLDERS} folders, the most a person may have")
    key = PERSONAL_PREFIX + new_id()
    session.execute(
        backend_of(session)
        .insert_or_skip(ImapFolder.__table__)  # type: ignore[arg-type]
        .values(
            owner=owner,
            key=key,
            name=name,
            uid_validity=uid_validity_now(),
            next_uid=1,
            highest_modseq=0,
            vanished_horizon=0,
        )
    )
    folder_id = session.scalar(
        select(ImapFolder.id).where(ImapFolder.owner == owner, ImapFolder.key == key)
    )
    if folder_id is None:  # skipped by the unique (owner, name) index: it exists
        raise NameTaken(f"you have a folder {name!r} already", _NAME_TAKEN)
    if not subscribed:  # bounded by MAX_FOLDERS, not MAX_SUBSCRIPTIONS: see the module doc
        session.execute(
            backend_of(session)
            .insert_or_skip(ImapSubscription.__table__)  # type: ignore[arg-type]
            .values(owner=owner, name=name, subscribed=False)
        )
    wake_after_commit(session, [owner])  # IMAP sessions list it
    return PersonalFolder(int(folder_id), key, name)


def rename_folder(session: Session, owner: str, before: str, after: str) -> PersonalFolder:
    """RFC 3501 §6.3.5: the folder and its inferiors take the new name; their mail and
    UIDs stay (UIDVALIDITY too: a folder is found by its key, not its name)."""
    folder = _by_name(session, owner, before)
    after = personal_name(after)
    if after == folder.name:
        raise NameTaken(f"the folder is called {after!r} already", _NAME_TAKEN)
    if after.startswith(folder.name + DELIMITER):
        raise InvalidRequest(
            "a folder cannot be moved inside itself", FieldProblem("name", "invalid")
        )
    taken = session.scalar(
        select(ImapFolder.id).where(ImapFolder.owner == owner, ImapFolder.name == after)
    )
    if taken is not None:
        raise NameTaken(f"you have a folder {after!r} already", _NAME_TAKEN)
    renamed = [
        (other, after + other.name[len(folder.name) :])
        for other in personal_folders(session, owner)
        if other.name == folder.name or other.name.startswith(folder.name + DELIMITER)
    ]
    for _, new_name in renamed:
        personal_name(new_name)  # an inferior's new name within the bounds too
    for other, _ in renamed:  # a temporary name first: the unique index holds
        session.execute(
            update(ImapFolder).where(ImapFolder.id == other.id).values(name=DELIMITER + other.key)
        )
    for other, new_name in renamed:
        session.execute(update(ImapFolder).where(ImapFolder.id == other.id).values(name=new_name))
    _move_subscriptions(session, owner, folder.name, after)
    wake_after_commit(session, [owner])
    return PersonalFolder(folder.id, folder.key, after)


def _move_subscriptions(session: Session, owner: str, before: str, after: str) -> None:
    rows = session.execute(
        select(ImapSubscription.name, ImapSubscription.subscribed).where(
            ImapSubscription.owner == owner
        )
    ).all()
    moved = {
        row.name: (after + row.name[len(before) :], row.subscribed)
        for row in rows
        if row.name == before or row.name.startswith(before + DELIMITER)
    }
    for old_name, (new_name, subscribed) in moved.items():
        set_subscribed(session, owner, old_name, None)
        set_subscribed(session, owner, new_name, subscribed)


def delete_folder(session: Session, owner: str, name: str) -> int:
    """The folder is gone; its mail is in Archive. Returns how many mails moved there."""
    folder = _by_name(session, owner, name)
    filed = list(
        session.scalars(
            select(Delivery.mail_seq)
            .where(
                Delivery.recipient == owner,
                Delivery.folder == folder.key,
                Delivery.deleted.is_(False),
            )
            .order_by(Delivery.mail_seq)
        )
    )
    session.execute(
        update(Delivery)
        .where(Delivery.recipient == owner, Delivery.folder == folder.key)
        .values(folder=None, archived=True)
    )
    if filed:
        refile_mails(session, filed, owner, folder.key, ARCHIVE)
    session.execute(delete(ImapFolder).where(ImapFolder.id == folder.id))
    session.execute(  # an absent name is unsubscribed anyway
        delete(ImapSubscription).where(
            ImapSubscription.owner == owner,
            ImapSubscription.name == folder.name,
            ImapSubscription.subscribed.is_(False),
        )
    )
    wake_after_commit(session, [owner])
    return len(filed)


def set_subscribed(session: Session, owner: str, name: str, subscribed: bool | None) -> None:
    """Remember SUBSCRIBE (True) or UNSUBSCRIBE (False) of a name; None forgets.
    LimitReached past MAX_SUBSCRIPTIONS names (a name may be anything: RFC 3501 §6.3.6)."""
    if len(name) > MAX_WIRE_OCTETS:
        raise LimitReached(f"a mailbox name is at most {MAX_WIRE_OCTETS} characters")
    known = session.execute(
        delete(ImapSubscription)
        .where(ImapSubscription.owner == owner, ImapSubscription.name == name)
        .returning(ImapSubscription.name)
    ).first()
    if subscribed is not None and known is None:
        count = session.scalar(select(func.count()).where(ImapSubscription.owner == owner))
        if (count or 0) >= MAX_SUBSCRIPTIONS:
            raise LimitReached(f"at most {MAX_SUBSCRIPTIONS} names are remembered as subscribed")
    if subscribed is not None:
        session.add(ImapSubscription(owner=owner, name=name, subscribed=subscribed))
        session.flush()
    wake_after_commit(session, [owner])


def subscriptions(session: Session, owner: str) -> dict[str, bool]:
    """What was said of each name: {name: subscribed}."""
    rows = session.execute(
        select(ImapSubscription.name, ImapSubscription.subscribed).where(
            ImapSubscription.owner == owner
        )
    )
    return {row.name: bool(row.subscribed) for row in rows}

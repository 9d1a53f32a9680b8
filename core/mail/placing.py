"""Where a recipient keeps a mail, changed by the web UI and REST: read, archived, in
Trash or filed in a folder of their own (core/mailboxes/placement.py; IMAP's STORE,
MOVE and EXPUNGE make the same changes)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import Forbidden, NotFound
from core.mail.reading import Status, delivery_of, delivery_status
from core.mailboxes.own_folders import folder_key_of
from core.mailboxes.personal import personal_folder
from core.mailboxes.placement import change_placement
from core.mailboxes.uids import touch
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Mail

__all__ = ["file_in_folder", "set_delivery_state"]


async def set_delivery_state(
    store: Store,
    principal: Principal,
    mail_id: str,
    *,
    read: bool | None = None,
    archived: bool | None = None,
    deleted: bool | None = None,
) -> Status:
    """Change the caller's own read, archive or trash state of a mail it received.

    Archiving and deleting go through `change_placement`, as IMAP's MOVE and
    EXPUNGE do; a human's mail changes IMAP folder with them.
    """
    if deleted is not None and not principal.is_human:
        raise Forbidden("only humans have a Trash: an agent archives mail instead")

    def run(session: Session) -> Status:
        mail = session.scalar(select(Mail).where(Mail.id == mail_id))
        delivery = delivery_of(session, principal, mail) if mail is not None else None
        if delivery is None:
            raise NotFound(f"no mail {mail_id} in your mailbox")
        if read is not None and read != delivery.is_read:
            delivery.is_read = read
            if principal.is_human:  # `\Seen` in the human's IMAP sessions
                touch(session, principal.name, [delivery.mail_seq])
        if archived is not None or deleted is not None:
            change_placement(
                session,
                principal.name,
                [delivery.mail_seq],
                archived=archived,
                deleted=deleted,
                imap=principal.is_human,  # a new, highest UID in the folder it enters
            )  # an ORM update: `delivery` is synchronised with it
        return delivery_status(delivery)

    return await store.write(run)


async def file_in_folder(
    store: Store, principal: Principal, mail_id: str, folder_id: str
) -> Status:
    """File a mail the caller received in a folder of theirs (IMAP's MOVE there):
    out of INBOX, Archive or Trash, or another folder."""
    if not principal.is_human:
        raise Forbidden("only humans have folders: an agent archives mail instead")
    key = folder_key_of(folder_id)

    def run(session: Session) -> Status:
        if personal_folder(session, principal.name, key) is None:
            raise NotFound(f"no folder {folder_id}")
        mail = session.scalar(select(Mail).where(Mail.id == mail_id))
        delivery = delivery_of(session, principal, mail) if mail is not None else None
        if delivery is None:
            raise NotFound(f"no mail {mail_id} in your mailbox")
        change_placement(
            session, principal.name, [delivery.mail_seq], archived=True, deleted=False, folder=key
        )
        return delivery_status(delivery)

    return await store.write(run)

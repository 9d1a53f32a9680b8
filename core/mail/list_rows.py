"""List rows: a page of mail carrying only what a list row shows, cheap to make.

`inbox` and `sent` (core/mail/reading.py) load whole mails and build full views:
bodies, recipients' email forms, attachments, keywords and the agents' workspaces.
A list shows none of that, so these read only the columns a row shows, the stored
excerpt and task counts (core/mail/excerpt.py) instead of the body, and the
attachments as a count, in one statement for the page and one for the total
(the same index-ordered statements as `inbox`; bench/inbox.py times both).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.identity.external import stored_party
from core.mail.reading import PREVIEW_CHARS, InboxStatus, Order, inbox_filter
from core.mailboxes.own_folders import folder_key_of, public_id
from core.mailboxes.personal import personal_folder
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Attachment, Conversation, Delivery, Mail
from core.views import View

__all__ = ["MailRowList", "MailRowView", "inbox_rows", "sent_rows"]


class MailRowView(View):
    """A mail as a list row shows it; `GET …/mail/{mail_id}` has the rest."""

    mail_id: str
    session_id: str
    session_alias: str | None
    from_: str = Field(alias="from", serialization_alias="from")
    to: str
    subject: str
    excerpt: str = Field(description="The body as plain text, at most 200 characters.")
    created_at: datetime
    mail_type: str
    auto: bool
    permission_state: Literal["open", "decided", "expired"] | None
    delivery: Literal["to", "cc"] | None = Field(description="Null in Sent.")
    status: Literal["unread", "read", "archived", "deleted"] | None = None
    flagged: bool | None = None
    answered: bool | None = None
    folder_id: str | None = None
    attachment_count: int
    tasks_done: int
    tasks_total: int


class MailRowList(View):
    rows: list[MailRowView]
    total: int


_ATTACHED = (
    select(func.count())
    .where(Attachment.mail_seq == Mail.seq)
    .correlate(Mail)
    .scalar_subquery()
    .label("attached")
)
_COLUMNS = (
    Mail.id,
    Mail.session_id,
    Conversation.alias,
    Mail.from_name,
    Mail.from_path,
    Mail.to_name,
    Mail.to_path,
    Mail.subject,
    # The stored excerpt; a mail the backfill has not reached shows its body's start.
    func.coalesce(Mail.excerpt, func.substr(Mail.body, 1, PREVIEW_CHARS)),
    Mail.created_at,
    Mail.mail_type,
    Mail.auto,
    Mail.permission_state,
    Mail.tasks_done,
    Mail.tasks_total,
    _ATTACHED,
)
_DELIVERY_COLUMNS = (
    Delivery.kind,
    Delivery.is_read,
    Delivery.archived,
    Delivery.deleted,
    Delivery.flagged,
    Delivery.answered,
    Delivery.folder,
)


def _row(values: Any, delivery: Any | None) -> MailRowView:
    (mail_id, session_id, alias, from_name, from_path, to_name, to_path, subject) = values[:8]
    (excerpt, created_at, mail_type, auto, state, done, total, attached) = values[8:16]
    status = None
    if delivery is not None:
        kind, is_read, archived, deleted, flagged, answered, folder = delivery
        status = (
            "deleted" if deleted else "archived" if archived else "read" if is_read else "unread"
        )
    return MailRowView(
        mail_id=mail_id,
        session_id=session_id,
        session_alias=alias,
        from_=stored_party(from_name, from_path, alias).native(),
        to=stored_party(to_name, to_path, alias).native(),
        subject=subject,
        excerpt=" ".join((excerpt or "").split()) if excerpt is not None else "",
        created_at=created_at,
        mail_type=mail_type,
        auto=auto,
        permission_state=state,
        delivery=kind if delivery is not None else None,
        status=status,
        flagged=flagged if delivery is not None else None,
        answered=answered if delivery is not None else None,
        folder_id=public_id(folder or "") if delivery is not None else None,
        attachment_count=int(attached or 0),
        tasks_done=done,
        tasks_total=total,
    )


async def inbox_rows(
    store: Store,
    principal: Principal,
    *,
    status: InboxStatus = "all",
    limit: int = 50,
    offset: int = 0,
    order: Order = "newest",
    folder_id: str | None = None,
) -> MailRowList:
    """The rows of the caller's mail by status, or, with `folder_id`, that folder of theirs."""
    folder = folder_key_of(folder_id) if folder_id is not None else None
    mine = inbox_filter(principal.name, status, folder)
    count = select(func.count()).select_from(Delivery).where(*mine)
    ordering = Delivery.mail_seq.desc() if order == "newest" else Delivery.mail_seq.asc()
    page = (
        select(*_COLUMNS, *_DELIVERY_COLUMNS)
        .select_from(Delivery)
        .join(Mail, Mail.seq == Delivery.mail_seq)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(*mine)
        .order_by(ordering)
        .limit(limit)
        .offset(offset)
    )
    width = len(_COLUMNS)

    def run(session: Session) -> tuple[int, list[Any]]:
        if folder is not None and personal_folder(session, principal.name, folder) is None:
            raise NotFound(f"no folder {folder_id}")
        return int(session.scalar(count) or 0), list(session.execute(page).all())

    total, rows = await store.read(run)
    return MailRowList(rows=[_row(row[:width], row[width:]) for row in rows], total=total)


async def sent_rows(
    store: Store, principal: Principal, *, limit: int = 50, offset: int = 0
) -> MailRowList:
    """The rows of the mail the caller sent, newest first."""
    count = select(func.count()).where(Mail.from_name == principal.name)
    page = (
        select(*_COLUMNS)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(Mail.from_name == principal.name)
        .order_by(Mail.seq.desc())
        .limit(limit)
        .offset(offset)
    )

    def run(session: Session) -> tuple[int, list[Any]]:
        return int(session.scalar(count) or 0), list(session.execute(page).all())

    total, rows = await store.read(run)
    return MailRowList(rows=[_row(row, None) for row in rows], total=total)

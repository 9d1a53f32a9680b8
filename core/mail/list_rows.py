"""List rows: a page of mail carrying only what a list row shows, cheap to make.

`inbox` and `sent` (core/mail/reading.py) load whole mails and build full views:
bodies, recipients' email forms, attachments, keywords and the agents' workspaces.
A list shows none of that, so these read only the columns a row shows, the stored
excerpt and task counts (core/mail/excerpt.py) instead of the body, and the
attachments as a count, in one statement for the page and one for the total
(the same index-ordered statements as `inbox`; bench/inbox.py times both). The
total is counted up to `COUNT_CAP` (as search's is): past it a count costs more
than the page, and a list only needs to know whether more follow (`has_more`,
from one row read past the page). The statements are built once, with bound
values, and the page's JSON is written without pydantic's validation.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field
from pydantic_core import to_json
from sqlalchemy import BindParameter, bindparam, func, select
from sqlalchemy.orm import Session

from core.address import POSTMASTER
from core.errors import NotFound
from core.identity.external import EXTERNAL_NAME, stored_party
from core.mail.reading import PREVIEW_CHARS, InboxStatus, Order, inbox_filter
from core.mailboxes.own_folders import folder_key_of, public_id
from core.mailboxes.personal import personal_folder
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Attachment, Conversation, Delivery, Mail
from core.store.prepared import Prepared, Row
from core.views import View

__all__ = ["COUNT_CAP", "MailRowList", "MailRowView", "inbox_rows", "sent_rows"]

COUNT_CAP = 1000  # a count costs a step per mail: a list's total is counted this far


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
    total: int = Field(description=f"Mails in the list, counted up to {COUNT_CAP:,}.")
    total_exact: bool = Field(description="False: more than `total` (counting stops there).")
    has_more: bool = Field(description="Rows after this page: ask with `offset` + `limit`.")


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
_WIDTH = len(_COLUMNS)
_DELIVERY_COLUMNS = (
    Delivery.kind,
    Delivery.is_read,
    Delivery.archived,
    Delivery.deleted,
    Delivery.flagged,
    Delivery.answered,
    Delivery.folder,
)
_NAME: BindParameter[str] = bindparam("name")
_FOLDER: BindParameter[str] = bindparam("folder")
_LIMIT: BindParameter[int] = bindparam("limit")
_OFFSET: BindParameter[int] = bindparam("offset")
_Key = tuple[str, str, bool]
_INBOX: dict[_Key, tuple[Prepared, Prepared]] = {}
_SENT_COUNT = Prepared(
    select(func.count()).select_from(
        select(Mail.seq).where(Mail.from_name == _NAME).limit(COUNT_CAP + 1).subquery()
    )
)
_SENT_PAGE = Prepared(
    select(*_COLUMNS)
    .join(Conversation, Conversation.id == Mail.session_id)
    .where(Mail.from_name == _NAME)
    .order_by(Mail.seq.desc())
    .limit(_LIMIT)
    .offset(_OFFSET)
)


def _inbox_statements(
    status: InboxStatus, order: Order, in_folder: bool
) -> tuple[Prepared, Prepared]:
    """The count and the page, built once per status, order and folder-or-not: the
    same index-ordered statements as `reading.inbox_statements`, with bound values."""
    key = (status, order, in_folder)
    if key not in _INBOX:
        mine = inbox_filter(_NAME, status, _FOLDER if in_folder else None)  # type: ignore[arg-type]
        ordering = Delivery.mail_seq.desc() if order == "newest" else Delivery.mail_seq.asc()
        counted = select(Delivery.mail_seq).where(*mine).limit(COUNT_CAP + 1).subquery()
        count = select(func.count()).select_from(counted)
        page = (
            select(*_COLUMNS, *_DELIVERY_COLUMNS)
            .select_from(Delivery)
            .join(Mail, Mail.seq == Delivery.mail_seq)
            .join(Conversation, Conversation.id == Mail.session_id)
            .where(*mine)
            .order_by(ordering)
            .limit(_LIMIT)
            .offset(_OFFSET)
        )
        _INBOX[key] = (Prepared(count), Prepared(page))
    return _INBOX[key]


class _Parties:
    """Native addresses of a page's senders and recipients: each name and path checked
    once (`stored_party`), the conversation's alias added as `Address.native` adds it."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str], str] = {}

    def __call__(self, name: str, path: str, alias: str | None) -> str:
        bare = self.known.get((name, path))
        if bare is None:
            bare = self.known[(name, path)] = stored_party(name, path, None).native()
        if alias is None or name in (EXTERNAL_NAME, POSTMASTER):
            return bare  # an outside party and the postmaster take no alias
        return f"{name}@{path}.{alias}"


def _row(values: Row, delivery: Row | None, party: _Parties) -> dict[str, Any]:
    """A row as the API sends it (MailRowView's fields, by their JSON names)."""
    (mail_id, session_id, alias, from_name, from_path, to_name, to_path, subject) = values[:8]
    (excerpt, created_at, mail_type, auto, state, done, total, attached) = values[8:16]
    row: dict[str, Any] = {
        "mail_id": mail_id,
        "session_id": session_id,
        "session_alias": alias,
        "from": party(from_name, from_path, alias),
        "to": party(to_name, to_path, alias),
        "subject": subject,
        "excerpt": " ".join((excerpt or "").split()),
        "created_at": created_at,
        "mail_type": mail_type,
        "auto": bool(auto),
        "permission_state": state,
        "delivery": None,
        "status": None,
        "flagged": None,
        "answered": None,
        "folder_id": None,
        "attachment_count": int(attached or 0),
        "tasks_done": done,
        "tasks_total": total,
    }
    if delivery is not None:
        kind, is_read, archived, deleted, flagged, answered, folder = delivery
        row["delivery"] = kind
        row["status"] = (
            "deleted" if deleted else "archived" if archived else "read" if is_read else "unread"
        )
        row["flagged"], row["answered"] = bool(flagged), bool(answered)
        row["folder_id"] = public_id(folder or "")
    return row


def _page_json(rows: list[dict[str, Any]], total: int, limit: int) -> bytes:
    """`MailRowList` as JSON, written directly: pydantic would validate every row it
    was just given by the database, a third of a page's CPU. The page was read one
    row longer than `limit`, to say whether more follow."""
    page = {
        "rows": rows[:limit],
        "total": min(total, COUNT_CAP),
        "total_exact": total <= COUNT_CAP,
        "has_more": len(rows) > limit,
    }
    return to_json(page)


async def inbox_rows(
    store: Store,
    principal: Principal,
    *,
    status: InboxStatus = "all",
    limit: int = 50,
    offset: int = 0,
    order: Order = "newest",
    folder_id: str | None = None,
) -> bytes:
    """The rows of the caller's mail by status, or, with `folder_id`, that folder of
    theirs, as `MailRowList` JSON."""
    folder = folder_key_of(folder_id) if folder_id is not None else None
    count, page = _inbox_statements(status, order, folder is not None)
    mine: dict[str, object] = {"name": principal.name}
    if folder is not None:
        mine["folder"] = folder
    params = {**mine, "limit": limit + 1, "offset": offset}

    def run(session: Session) -> tuple[int, list[Row]]:
        if folder is not None and personal_folder(session, principal.name, folder) is None:
            raise NotFound(f"no folder {folder_id}")
        connection = session.connection()
        total = count.first(
            connection, {"name": principal.name, **({"folder": folder} if folder else {})}
        )
        return int(total[0] if total else 0), page.run(connection, params)

    total, rows = await store.read(run)
    party = _Parties()
    return _page_json([_row(row[:_WIDTH], row[_WIDTH:], party) for row in rows], total, limit)


async def sent_rows(
    store: Store, principal: Principal, *, limit: int = 50, offset: int = 0
) -> bytes:
    """The rows of the mail the caller sent, newest first, as `MailRowList` JSON."""
    params = {"name": principal.name, "limit": limit + 1, "offset": offset}

    def run(session: Session) -> tuple[int, list[Row]]:
        connection = session.connection()
        total = _SENT_COUNT.first(connection, {"name": principal.name})
        return int(total[0] if total else 0), _SENT_PAGE.run(connection, params)

    total, rows = await store.read(run)
    party = _Parties()
    return _page_json([_row(row, None, party) for row in rows], total, limit)

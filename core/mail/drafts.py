"""Drafts: a human's unsent mails, saved as they are written and sent through `send_mail`.

A draft may be incomplete, so nothing is checked for deliverability while drafting
(the recipient may not exist yet); but an address that is present must follow the
grammar, so a draft never holds text the one parser would refuse. Sending goes
through the one write path and deletes the draft in the mail's own transaction: a
sent draft is gone, a refused send keeps it, and it can never be sent twice.
IMAP's `Drafts` mailbox shows these same rows (core/mailboxes/drafts.py): every saved
version takes a new UID there, since an IMAP message never changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.address import normalize_alias, parse_address, parse_native
from core.errors import DraftChanged, Forbidden, InvalidRequest, NotFound
from core.mail.conversations import MAX_ALIAS
from core.mail.excerpt import excerpt_of
from core.mail.reading import PREVIEW_CHARS
from core.mail.send import DEFAULT_LIMITS, MAX_CC, SendRequest, send_mail
from core.mail.subjects import MAX_SUBJECT, one_line
from core.mailboxes.uids import DRAFTS, take_uids
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store, wake_after_commit
from core.store.models import Draft, new_id, utcnow
from core.views import Budget, BudgetInput, SendResult, View


class DraftView(View):
    draft_id: str
    to: str | None
    to_email: str | None
    cc: list[str]
    cc_email: list[str]
    subject: str
    body: str | None = Field(None, description="Full Markdown body (omitted in listings).")
    body_preview: str
    reply_to: str | None
    session_alias: str | None
    budget: Budget | None = Field(description="null = the receiving agent's default.")
    created_at: datetime
    updated_at: datetime


class DraftList(View):
    drafts: list[DraftView]
    total: int


class DraftInput(BaseModel):
    """What a client saves; every field is optional, blank addresses count as absent."""

    to: str | None = Field(None, description="One address, native or email form.")
    cc: list[str] = Field(default_factory=list, description="More recipients.")
    subject: str = Field("", max_length=MAX_SUBJECT)
    body: str = ""
    reply_to: str | None = Field(None, max_length=64, description="mail_id this draft answers.")
    session_alias: str | None = Field(
        None, max_length=MAX_ALIAS, description="Alias for a new one."
    )
    budget: BudgetInput | None = Field(None, description="Round-trip budget of a new one.")


def _address(text: str, domain: str) -> str:
    return parse_address(text, domain).native()


def _blank(text: str | None) -> str | None:
    return text.strip() or None if text is not None else None


def _columns(draft: DraftInput, domain: str) -> dict[str, Any]:
    """The draft's columns, with addresses in their canonical native form."""
    to = _blank(draft.to)
    cc = [text.strip() for text in draft.cc if text.strip()]
    if len(cc) > MAX_CC:
        raise InvalidRequest(f"at most {MAX_CC} cc recipients")
    one_line(draft.subject)
    alias = _blank(draft.session_alias)
    return {
        "to": _address(to, domain) if to is not None else None,
        "cc": [_address(text, domain) for text in cc],
        "subject": draft.subject.strip(),
        "body": draft.body,
        "reply_to": _blank(draft.reply_to),
        "session_alias": normalize_alias(alias) if alias is not None else None,
        "budget": None if draft.budget is None else str(draft.budget),
    }


def _budget(stored: str | None) -> Budget | None:
    if stored is None:
        return None
    return "unlimited" if stored == "unlimited" else int(stored)


def draft_view(draft: Draft, domain: str, *, full_body: bool = True) -> DraftView:
    to = parse_native(draft.to) if draft.to is not None else None
    cc = [parse_native(text) for text in draft.cc]
    return DraftView(
        draft_id=draft.id,
        to=to.native() if to is not None else None,
        to_email=to.email(domain) if to is not None else None,
        cc=[a.native() for a in cc],
        cc_email=[a.email(domain) for a in cc],
        subject=draft.subject,
        body=draft.body if full_body else None,
        body_preview=excerpt_of(draft.body, PREVIEW_CHARS).text,
        reply_to=draft.reply_to,
        session_alias=draft.session_alias,
        budget=_budget(draft.budget),
        created_at=draft.created_at,
        updated_at=draft.updated_at,
    )


def _require_human(principal: Principal) -> None:
    if not principal.is_human:
        raise Forbidden("drafts belong to humans")


def _owned(session: Session, principal: Principal, draft_id: str) -> Draft:
    """The caller's draft; 404 for anyone else's (no existence leak)."""
    draft = session.scalar(select(Draft).where(Draft.id == draft_id, Draft.owner == principal.name))
    if draft is None:
        raise NotFound(f"no draft {draft_id}")
    return draft


def _new_version(session: Session, draft: Draft, now: datetime) -> None:
    """The draft's content changed: a new UID in the owner's IMAP Drafts."""
    draft.updated_at = now
    draft.imap_uid = take_uids(session, draft.owner, DRAFTS, 1)


def _gone(session: Session, owner: str) -> None:
    wake_after_commit(session, [owner])  # IMAP sessions on Drafts see the EXPUNGE


async def save_draft(
    store: Store,
    domain: str,
    principal: Principal,
    body: DraftInput,
    *,
    message_id: str | None = None,
) -> DraftView:
    """A new draft; with `message_id` (a mail client's APPEND to Drafts), the draft
    that carries that Message-ID already is replaced by this version."""
    _require_human(principal)
    columns = _columns(body, domain)
    now = utcnow()

    def run(session: Session) -> Draft:
        draft = None
        if message_id is not None:
            draft = session.scalar(
                select(Draft).where(Draft.owner == principal.name, Draft.message_id == message_id)
            )
        if draft is None:
            draft = Draft(id=new_id(), owner=principal.name, created_at=now, message_id=message_id)
            session.add(draft)
        for name, value in columns.items():
            setattr(draft, name, value)
        _new_version(session, draft, now)
        return draft

    return draft_view(await store.write(run), domain)


async def replace_draft(
    store: Store, domain: str, principal: Principal, draft_id: str, body: DraftInput
) -> DraftView:
    """Replace every field: what the body leaves out is cleared, as a PUT does."""
    _require_human(principal)
    columns = _columns(body, domain)

    def run(session: Session) -> Draft:
        draft = _owned(session, principal, draft_id)
        for name, value in columns.items():
            setattr(draft, name, value)
        _new_version(session, draft, utcnow())
        return draft

    return draft_view(await store.write(run), domain)


async def list_drafts(
    store: Store,
    domain: str,
    principal: Principal,
    *,
    limit: int = 50,
    offset: int = 0,
    include_body: bool = False,
) -> DraftList:
    """The caller's drafts, the most recently saved first."""
    _require_human(principal)
    mine = Draft.owner == principal.name
    page = (
        select(Draft)
        .where(mine)
        .order_by(Draft.updated_at.desc(), Draft.id.desc())
        .limit(limit)
        .offset(offset)
    )

    def run(session: Session) -> tuple[int, list[Draft]]:
        total = session.scalar(select(func.count()).select_from(Draft).where(mine))
        return int(total or 0), list(session.scalars(page))

    total, drafts = await store.read(run)
    views = [draft_view(draft, domain, full_body=include_body) for draft in drafts]
    return DraftList(drafts=views, total=total)


async def get_draft(store: Store, domain: str, principal: Principal, draft_id: str) -> DraftView:
    _require_human(principal)
    return draft_view(await store.read(lambda s: _owned(s, principal, draft_id)), domain)


async def delete_draft(store: Store, principal: Principal, draft_id: str) -> None:
    _require_human(principal)

    def run(session: Session) -> None:
        session.delete(_owned(session, principal, draft_id))
        _gone(session, principal.name)

    await store.write(run)


async def send_draft(
    store: Store,
    domain: str,
    principal: Principal,
    draft_id: str,
    limits: Limits = DEFAULT_LIMITS,
) -> SendResult:
    """Send the draft exactly as `/me/mail/send` would, and delete it with the mail."""
    _require_human(principal)
    draft = await store.read(lambda s: _owned(s, principal, draft_id))
    if draft.to is None:
        raise InvalidRequest("the draft has no 'to': add a recipient before sending it")
    request = SendRequest(
        to=draft.to,
        cc=draft.cc,
        subject=draft.subject,
        body=draft.body,
        reply_to=draft.reply_to,
        session_alias=draft.session_alias,
        budget=_budget(draft.budget),
    )

    def claim(session: Session) -> None:
        # Deleting the version we read, in the mail's transaction: a concurrent send
        # of the same draft finds nothing to delete and is refused, so one mail goes out.
        deleted = session.execute(
            delete(Draft).where(
                Draft.id == draft.id,
                Draft.owner == principal.name,
                Draft.updated_at == draft.updated_at,
            )
        )
        if deleted.rowcount != 1:  # type: ignore[attr-defined]
            _owned(session, principal, draft_id)  # gone: 404
            raise DraftChanged("the draft was changed while it was being sent; nothing was sent")
        _gone(session, principal.name)

    return await send_mail(store, domain, principal, request, also=claim, limits=limits)

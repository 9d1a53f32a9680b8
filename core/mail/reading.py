"""Reading mail: inbox, sent, one mail, read, archive and trash state (per recipient)."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, and_, false, func, or_, select, true, update
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.identity.external import EXTERNAL_NAME, Party, cc_party, stored_party
from core.mail.addressed import AgentWorkspaces, addressed_workspace, agent_workspaces
from core.mail.attachments import attachments_of
from core.mailboxes.keywords import keywords_of
from core.mailboxes.own_folders import folder_key_of, public_id
from core.mailboxes.personal import personal_folder
from core.mailboxes.uids import touch
from core.principal import Principal
from core.store.engine import Store, wake_after_commit
from core.store.models import Conversation, Delivery, Mail
from core.views import AttachmentRef, ExternalContent, MailList, MailView

PREVIEW_CHARS = 200
InboxStatus = Literal["unread", "read", "all", "archived", "deleted"]
Status = Literal["unread", "read", "archived", "deleted"]
Order = Literal["newest", "oldest"]
Attached = dict[int, list[AttachmentRef]]


def mail_view(
    mail: Mail,
    alias: str | None,
    domain: str,
    delivery: Delivery | None = None,
    *,
    full_body: bool = True,
    attachments: list[AttachmentRef] | None = None,
    keywords: list[str] | None = None,
    agents: AgentWorkspaces,
) -> MailView:
    """`agents`: the workspaces of the agents the mails are addressed to
    (`agent_workspaces`), read once for a page of mails."""
    sender = stored_party(mail.from_name, mail.from_path, alias)
    to = stored_party(mail.to_name, mail.to_path, alias)
    cc = [cc_party(text, alias) for text in mail.cc]
    status: Status | None = None
    if delivery is not None:
        status = delivery_status(delivery)
    # Plain text kept at store time; the body's start until the backfill reaches it.
    preview = (
        mail.excerpt if mail.excerpt is not None else " ".join(mail.body.split())[:PREVIEW_CHARS]
    )
    return MailView(
        mail_id=mail.id,
        seq=mail.seq,
        session_id=mail.session_id,
        session_alias=alias,
        parent_mail_id=mail.parent_id,
        from_=sender.native(),
        from_email=sender.email(domain),
        to=to.native(),
        to_email=to.email(domain),
        to_workspace=addressed_workspace(mail.to_name, mail.to_path, agents),
        cc=[a.native() for a in cc],
        cc_email=[a.email(domain) for a in cc],
        subject=mail.subject,
        body=mail.body if full_body else None,
        body_preview=preview,
        tasks_done=mail.tasks_done or 0,  # a row not flushed yet has no defaults
        tasks_total=mail.tasks_total or 0,
        mail_type=mail.mail_type,
        auto=mail.auto,
        message_id=mail.message_id,
        created_at=mail.created_at,
        delivery=delivery.kind if delivery is not None else None,
        status=status,
        folder_id=public_id(delivery.folder or "") if delivery is not None else None,
        flagged=delivery.flagged if delivery is not None else None,
        answered=delivery.answered if delivery is not None else None,
        keywords=keywords if delivery is not None else None,
        options=mail.options,
        permission_state=mail.permission_state,
        decision=mail.decision,
        decision_note=mail.decision_note,
        decided_by=mail.decided_by,
        decided_at=mail.decided_at,
        expires_at=mail.expires_at,
        action=mail.action,
        action_sha256=mail.action_sha256,
        attachments=attachments or [],
        external=external_content(mail, sender),
    )


def external_content(mail: Mail, sender: Party) -> ExternalContent | None:
    """The mark of content from outside (an imported outside sender today): bridges
    hand it to a model as untrusted input."""
    if mail.from_name != EXTERNAL_NAME:
        return None
    return ExternalContent(sender=sender.native())


def delivery_status(delivery: Delivery) -> Status:
    if delivery.deleted:
        return "deleted"
    return "archived" if delivery.archived else "read" if delivery.is_read else "unread"


def visible_mail(session: Session, principal: Principal, mail_id: str) -> Mail:
    """A mail the caller sent or received; 404 for anything else (no existence leak)."""
    mail = session.scalar(select(Mail).where(Mail.id == mail_id))
    if mail is None or not _can_see(session, principal, mail):
        raise NotFound(f"no mail {mail_id}")
    return mail


def forwardable_mail(session: Session, principal: Principal, mail_id: str) -> Mail:
    """A mail the caller sent or received; for anyone else it does not exist (404)."""
    return visible_mail(session, principal, mail_id)


def _can_see(session: Session, principal: Principal, mail: Mail) -> bool:
    if mail.from_name == principal.name:
        return True
    return delivery_of(session, principal, mail) is not None


def delivery_of(session: Session, principal: Principal, mail: Mail) -> Delivery | None:
    return session.scalar(
        select(Delivery).where(Delivery.mail_seq == mail.seq, Delivery.recipient == principal.name)
    )


def inbox_filter(
    name: str, status: InboxStatus, folder: str | None = None
) -> list[ColumnElement[bool]]:
    """Conditions on the recipient's deliveries only: an index prefix for every status.

    `= false`, not `IS false`: PostgreSQL matches both to the index but rechecks
    `IS` on the table, which rules out an index-only count. With `folder` (a personal
    folder's key), its mails that are not in Trash; `archived` leaves filed mail out.
    """
    if folder is not None:
        mine = [Delivery.recipient == name, Delivery.deleted == false(), Delivery.folder == folder]
    else:
        mine = [Delivery.recipient == name, Delivery.deleted == _flag(status == "deleted")]
        if status != "deleted":  # Trash lists archived and un-archived mail alike
            mine.append(Delivery.archived == _flag(status == "archived"))
        if status == "archived":
            mine.append(Delivery.folder.is_(None))
    if status in ("unread", "read"):
        mine.append(Delivery.is_read == _flag(status == "read"))
    return mine


def _flag(value: bool) -> ColumnElement[bool]:
    return true() if value else false()


def inbox_statements(
    name: str,
    status: InboxStatus,
    limit: int,
    offset: int = 0,
    order: Order = "newest",
    folder: str | None = None,
) -> tuple[Select[int], Select[Mail, Delivery, str | None]]:
    """The count and the page of an inbox listing (bench/inbox.py times exactly these).

    Both read the deliveries through an index that starts with the filter and
    ends in `mail_seq` (ix_deliveries_inbox, ix_deliveries_recipient_seq), so the
    page stops after `limit` rows in index order instead of sorting the whole
    inbox, and the count never touches `mails`: every delivery has its mail and
    every mail its conversation (foreign keys), so the joins cannot change it.
    """
    mine = inbox_filter(name, status, folder)
    count_query = select(func.count()).select_from(Delivery).where(*mine)
    ordering = Delivery.mail_seq.desc() if order == "newest" else Delivery.mail_seq.asc()
    page = (
        select(Mail, Delivery, Conversation.alias)
        .join(Delivery, Delivery.mail_seq == Mail.seq)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(*mine)
        .order_by(ordering)
        .limit(limit)
        .offset(offset)
    )
    return count_query, page


async def inbox(
    store: Store,
    domain: str,
    principal: Principal,
    *,
    status: InboxStatus = "all",
    limit: int = 50,
    offset: int = 0,
    order: Order = "newest",
    mark_read: bool = False,
    include_body: bool = False,
    folder_id: str | None = None,
) -> MailList:
    """The caller's mail by status, or, with `folder_id`, that folder of theirs."""
    folder = folder_key_of(folder_id) if folder_id is not None else None
    count_query, page = inbox_statements(principal.name, status, limit, offset, order, folder)

    def run(
        session: Session,
    ) -> tuple[int, list[Any], Attached, dict[int, list[str]], AgentWorkspaces]:
        if folder is not None and personal_folder(session, principal.name, folder) is None:
            raise NotFound(f"no folder {folder_id}")
        total = session.scalar(count_query)
        rows = session.execute(page).all()
        if mark_read:
            unread = [delivery for _, delivery, _ in rows if not delivery.is_read]
            if unread:
                ids = [delivery.id for delivery in unread]
                session.execute(update(Delivery).where(Delivery.id.in_(ids)).values(is_read=True))
                wake_after_commit(session, [principal.name])
                if principal.is_human:  # `\Seen` in the human's IMAP sessions
                    touch(session, principal.name, [delivery.mail_seq for delivery in unread])
        seqs = [row[0].seq for row in rows]
        words = keywords_of(session, principal.name, seqs)
        agents = agent_workspaces(session, (row[0] for row in rows))
        return int(total or 0), list(rows), attachments_of(session, seqs), words, agents

    total, rows, attached, words, agents = await (
        store.write(run) if mark_read else store.read(run)
    )
    mails = []
    for mail, delivery, alias in rows:
        files = attached.get(mail.seq)
        view = mail_view(
            mail,
            alias,
            domain,
            delivery,
            full_body=include_body,
            attachments=files,
            keywords=words.get(mail.seq, []),
            agents=agents,
        )
        mails.append(view)
    return MailList(mails=mails, total=total)


async def sent(
    store: Store,
    domain: str,
    principal: Principal,
    *,
    limit: int = 50,
    offset: int = 0,
    include_body: bool = False,
) -> MailList:
    query = (
        select(Mail, Conversation.alias)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(Mail.from_name == principal.name)
    )
    count = select(func.count()).where(Mail.from_name == principal.name)
    page = query.order_by(Mail.seq.desc()).limit(limit).offset(offset)

    def run(session: Session) -> tuple[int, list[Any], Attached, AgentWorkspaces]:
        rows = list(session.execute(page).all())
        attached = attachments_of(session, [row[0].seq for row in rows])
        agents = agent_workspaces(session, (row[0] for row in rows))
        return int(session.scalar(count) or 0), rows, attached, agents

    total, rows, attached, agents = await store.read(run)
    mails = [
        mail_view(
            mail,
            alias,
            domain,
            full_body=include_body,
            attachments=attached.get(mail.seq),
            agents=agents,
        )
        for mail, alias in rows
    ]
    return MailList(mails=mails, total=total)


def one_mail(session: Session, domain: str, principal: Principal, mail_id: str) -> MailView:
    """One mail the caller may see, in full (inside a read of the caller's)."""
    mail = visible_mail(session, principal, mail_id)
    alias = session.scalar(select(Conversation.alias).where(Conversation.id == mail.session_id))
    attached = attachments_of(session, [mail.seq]).get(mail.seq)
    words = keywords_of(session, principal.name, [mail.seq]).get(mail.seq, [])
    delivery = delivery_of(session, principal, mail)
    agents = agent_workspaces(session, [mail])
    return mail_view(
        mail, alias, domain, delivery, attachments=attached, keywords=words, agents=agents
    )


async def get_mail(store: Store, domain: str, principal: Principal, mail_id: str) -> MailView:
    return await store.read(lambda session: one_mail(session, domain, principal, mail_id))


def conversation_mails(
    session: Session, principal: Principal, conv: Conversation, domain: str
) -> list[MailView]:
    """The mails of a conversation the caller may see, oldest first."""
    mine = Delivery.recipient == principal.name
    rows = (
        session.execute(
            select(Mail, Delivery)
            .outerjoin(Delivery, and_(Delivery.mail_seq == Mail.seq, mine))
            .where(Mail.session_id == conv.id, or_(Mail.from_name == principal.name, mine))
            .order_by(Mail.seq)
        )
    ).all()
    seqs = [mail.seq for mail, _ in rows]
    attached = attachments_of(session, seqs)
    words = keywords_of(session, principal.name, seqs)
    agents = agent_workspaces(session, (mail for mail, _ in rows))
    return [
        mail_view(
            mail,
            conv.alias,
            domain,
            delivery,
            attachments=attached.get(mail.seq),
            keywords=words.get(mail.seq, []),
            agents=agents,
        )
        for mail, delivery in rows
    ]

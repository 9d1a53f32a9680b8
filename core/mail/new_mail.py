"""Storing a decided mail: its rows through the storage port, its events, the sender's answer.

core/mail/send.py decides (addressing, conversation, hops, budget); this writes.
Where the backend writes a new mail's rows at once (core/store/port.py) it gets
them as plain values; otherwise they go through the common statements, one
after another.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from core.identity.endpoints import Endpoint
from core.identity.external import cc_party, is_external, stored_party
from core.mail.addressed import addressed_workspace, agent_workspaces_of
from core.mail.attachments import attach, carry
from core.mail.conversation_rows import ConversationRow, save_conversation
from core.mail.conversation_views import budget_remaining
from core.mail.conversations import (
    add_participants,
    emit_session_update,
    participants,
    status_from_requests,
)
from core.mail.naming import Proposal, record_proposal
from core.mailboxes.placement import set_flags
from core.mailboxes.uids import file_mail, new_mail_placements, uid_validity_now
from core.principal import Principal
from core.push.jobs import queue_pushes
from core.push.payload import PUSHED_TYPES, request_payload
from core.store.engine import wake_after_commit
from core.store.events import emit
from core.store.models import Delivery, Mail, isoformat, table_of
from core.store.port import ConversationWrite, NewMail, backend_of
from core.store.prepared import Prepared
from core.views import SendResult

# Woken after COMMIT of a permission request with a deadline (in every replica): the
# expiry job sleeps until the nearest deadline (core/approvals/permissions.py).
DEADLINE_WAKE = "!deadlines"
_MAILS = table_of(Mail)
_INSERT_MAIL = Prepared(insert(_MAILS).returning(_MAILS.c.seq))
_INSERT_DELIVERY = Prepared(insert(table_of(Delivery)))


@dataclass(frozen=True, slots=True)
class Permission:
    options: list[str]
    expires_at: datetime | None = None
    action: str | None = None
    action_sha256: str | None = None


@dataclass(frozen=True, slots=True)
class Sending:
    """What the domain decided about a mail before its row exists."""

    principal: Principal
    sender: Endpoint
    target: Endpoint
    cc: list[Endpoint]
    parent: Mail | None
    replied_to: Mail | None  # the parent, unless this mail forwards it
    attachment_ids: list[str]
    permission: Permission | None
    mail_type: str
    proposal: Proposal | None
    hops: int
    rounds: int

    @property
    def forwarded(self) -> Mail | None:
        return self.parent if self.replied_to is None else None

    @property
    def answers(self) -> bool:
        """A human's reply: their delivery of the mail answered becomes \\Answered."""
        return self.replied_to is not None and self.sender.agent is None


def store_new_mail(
    session: Session,
    mail: Sending,
    values: dict[str, Any],
    conv: ConversationRow,
    created: bool,
    domain: str,
) -> SendResult:
    """Write the mail's rows, its attachments and flags, the conversation; queue its
    events, the Web Push of a request or question to the people it asks, and the
    expiry job's wake-up for a deadline."""
    result = _store(session, mail, values, conv, created, domain)
    if mail.permission is not None and mail.permission.expires_at is not None:
        wake_after_commit(session, [DEADLINE_WAKE])
    if mail.mail_type in PUSHED_TYPES:
        asked = [n for e in _ours(mail) if e.agent is None for n in e.recipients]
        payload = request_payload(
            mail.mail_type, result.mail_id, result.session_id, mail.sender.name
        )
        queue_pushes(session, [n for n in asked if n != mail.sender.name], payload)
    return result


def _store(
    session: Session,
    mail: Sending,
    values: dict[str, Any],
    conv: ConversationRow,
    created: bool,
    domain: str,
) -> SendResult:
    sender, target = mail.sender, mail.target
    # One delivery per name; a role mailbox (postmaster@) is delivered to its readers;
    # an outside recipient gets none (its mail leaves by core/outbound/).
    recipients: dict[str, str] = {}
    for endpoint in _ours(mail):
        for name in endpoint.recipients:
            recipients.setdefault(name, "to" if endpoint is target else "cc")
    humans = [n for e in _ours(mail) if e.agent is None for n in e.recipients]
    placements = new_mail_placements(
        conv.id,
        sender.name if sender.agent is None else None,
        humans,
        needs_decision=mail.permission is not None,
    )
    old_status = conv.status
    status = _status_known_before(conv.status, mail)
    backend = backend_of(session)
    agent_proposes = mail.proposal is not None and mail.principal.is_agent
    if backend.can_write_mail_at_once() and status is not None and not agent_proposes:
        seq_needed = bool(mail.attachment_ids) or mail.forwarded is not None or mail.answers
        new = NewMail(
            values,
            recipients,
            placements,
            [sender.name, *recipients],
            uid_validity_now(),
            ConversationWrite(conv.id, status, mail.rounds, values["created_at"]),
            seq_needed,
        )
        seq = backend.write_mail_at_once(session, new)
        wake_after_commit(session, {owner for owner, _ in placements})
        if seq is not None:
            _link(session, mail, seq)
            _mark_answered(session, mail)
        conv.status = status
        conv.updated_at = values["created_at"]  # as stored, like the budget
        return _sent(session, values, recipients, conv, old_status, created, domain, target)
    seq = _INSERT_MAIL.run(session.connection(), values)[0][0]
    _link(session, mail, seq)
    if recipients:  # none when every recipient is outside
        _INSERT_DELIVERY.run(
            session.connection(),
            [
                {
                    "mail_seq": seq,
                    "recipient": name,
                    "kind": kind,
                    "created_at": values["created_at"],
                }
                for name, kind in recipients.items()
            ],
        )
    file_mail(session, seq, placements)
    add_participants(session, conv.id, [sender.name, *recipients])
    _mark_answered(session, mail)
    if mail.proposal is not None and agent_proposes:
        record_proposal(session, conv, mail.proposal, sender.name, values["id"])
    # A human's mail answers an open question (not a permission request): read
    # with this mail stored.
    conv.status = status or status_from_requests(session, conv.id)
    conv.updated_at = values["created_at"]
    conv = save_conversation(session, conv, mail.rounds)  # one UPDATE … RETURNING
    return _sent(session, values, recipients, conv, old_status, created, domain, target)


def _ours(mail: Sending) -> list[Endpoint]:
    """The recipients inside the gateway (`to` first)."""
    return [e for e in (mail.target, *mail.cc) if not is_external(e)]


def _link(session: Session, mail: Sending, seq: int) -> None:
    """The new mail's attachments, and a forward's copies of the forwarded mail's."""
    attach(session, mail.attachment_ids, seq)
    if mail.forwarded is not None:
        carry(session, mail.forwarded.seq, seq, mail.sender.name)


def _mark_answered(session: Session, mail: Sending) -> None:
    """The replying human's own delivery of the mail answered is \\Answered (IMAP,
    RFC 3501 §2.3.2), in this transaction; their sessions are told."""
    if mail.answers and mail.replied_to is not None:
        set_flags(session, mail.sender.name, {("answered", True): [mail.replied_to.seq]})


def _status_known_before(status: str, mail: Sending) -> str | None:
    """The conversation's status after this mail when the mail's own row cannot
    change it; None when it must be read with the mail stored."""
    if mail.permission is not None or mail.mail_type == "question":
        return "waiting"  # until a human decides or answers
    if status == "completed" or (status == "waiting" and mail.principal.is_human):
        return None
    return status


def _sent(
    session: Session,
    values: dict[str, Any],
    recipients: dict[str, str],
    conv: ConversationRow,
    old_status: str,
    created: bool,
    domain: str,
    target: Endpoint,
) -> SendResult:
    """Queue the stored mail's events (inserted at COMMIT); the sender's answer."""
    payload = _new_mail_payload(values["id"], values, conv, domain, target)
    emit(session, recipients, "new_mail", payload)
    if conv.status != old_status and not created:
        emit_session_update(session, conv, participants(session, conv.id))
    return SendResult(
        mail_id=values["id"],
        session_id=conv.id,
        session_alias=conv.alias,
        message_id=values["message_id"],
        budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
        budget_used=conv.budget_used,
        budget_remaining=budget_remaining(conv),
        created_at=values["created_at"],
    )


def _new_mail_payload(
    mail_id: str, values: dict[str, Any], conv: ConversationRow, domain: str, target: Endpoint
) -> dict[str, object]:
    sender = stored_party(values["from_name"], values["from_path"], conv.alias)
    to = stored_party(values["to_name"], values["to_path"], conv.alias)
    workspace = None
    if target.agent is not None:
        paths = agent_workspaces_of(target.agent)
        workspace = addressed_workspace(target.name, target.workspace, paths)
    return {
        "mail_id": mail_id,
        "session_id": conv.id,
        "session_alias": conv.alias,
        "from": sender.native(),
        "from_email": sender.email(domain),
        "to": to.native(),
        "to_workspace": workspace.model_dump() if workspace is not None else None,
        "cc": [cc_party(text, conv.alias).native() for text in values["cc"]],
        "auto": values["auto"],
        "subject": values["subject"],
        "mail_type": values["mail_type"],
        "created_at": isoformat(values["created_at"]),
    }

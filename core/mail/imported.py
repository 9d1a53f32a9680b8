"""The import mode of the one write path (core/mail/send.py): one archived mail, as it was.

`agentmail import` (core/archive/importing.py) calls it for every message of an mbox, a
Maildir, `.eml` files or an IMAP mailbox, many per transaction. Who sent it, to
whom, when, and which mail it answers are given by the archive, so nothing is
decided or limited here: no round of a budget, no rate limit, no hop count (history
is not a new exchange), and no `new_mail` event (an archive is not news, and ten
thousand events would flood every stream). Deliveries start read, and a conversation
an import opens starts `completed`: an archive's thread is nobody's open work (a new
mail in it reopens it, as in any completed conversation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from core.identity.endpoints import Endpoint
from core.identity.external import EXTERNAL_NAME, stored_cc
from core.mail.conversations import add_participants, lock_creation
from core.mail.excerpt import excerpt_values
from core.mail.routing import initial_budget, open_conversation
from core.mailboxes.uids import Placement, file_mails, new_mail_placements
from core.store.models import Attachment, Conversation, Delivery, Mail, new_id, table_of
from core.store.raw_messages import Original, keep_original

__all__ = [
    "FILED",
    "ImportedMail",
    "Stored",
    "import_writer",
    "stored_by_message_id",
    "thread_subject",
]

_INSERT_MAILS = insert(table_of(Mail)).returning(table_of(Mail).c.seq, sort_by_parameter_order=True)
_INSERT_DELIVERY = insert(table_of(Delivery))
_INSERT_ATTACHMENT = insert(table_of(Attachment))
_SESSIONS = table_of(Conversation)
# A conversation's `updated_at` is its newest mail's time, whatever order mails come in.
_TOUCH = (
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("conv_id"), _SESSIONS.c.updated_at < bindparam("when"))
    .values(updated_at=bindparam("when"))
)
_IN_CHUNK = 500
# The mail type of a message a person filed by IMAP APPEND (core/archive/filed.py): theirs
# alone, so never found by its Message-ID for anyone (a parent, a duplicate).
FILED = "filed"
# Re:, Fwd:, Fw:, and the German, Scandinavian and Dutch ones, with an optional [n].
_REPLY_PREFIX = re.compile(r"\s*(?:re|fwd?|aw|wg|sv|vs|antw)\s*(?:\[\d+\])?\s*:\s*", re.I)


@dataclass(frozen=True, slots=True)
class Stored:
    """A stored mail as a reply needs it: its id and its conversation."""

    mail_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class ImportedMail:
    sender: Endpoint
    to: Endpoint
    cc: Sequence[Endpoint]
    subject: str
    body: str
    message_id: str
    raw: Original
    created_at: datetime
    replies_to: Sequence[str]  # In-Reply-To, then References newest first
    attachments: Sequence[tuple[str, str, int, str]]  # filename, content type, size, sha256


def stored_by_message_id(session: Session, message_ids: Collection[str]) -> dict[str, Stored]:
    """The first stored mail carrying each of these Message-IDs (a copy a person filed
    by IMAP APPEND is theirs alone: core/archive/filed.py)."""
    found: dict[str, Stored] = {}
    wanted = list(message_ids)
    for start in range(0, len(wanted), _IN_CHUNK):
        rows = session.execute(
            select(Mail.message_id, Mail.id, Mail.session_id)
            .where(Mail.message_id.in_(wanted[start : start + _IN_CHUNK]))
            .where(Mail.mail_type != FILED)
            .order_by(Mail.seq)
        )
        for message_id, mail_id, session_id in rows:
            found.setdefault(message_id, Stored(mail_id, session_id))
    return found


def import_writer(mails: Sequence[ImportedMail]) -> Callable[[Session], list[Stored | None]]:
    """The write of several imported mails, in order (parents first: a mail may answer
    one written just before it). Each is a reply in the conversation of the nearest
    stored mail it names, else the first mail of a new conversation named after its
    subject. A mail whose Message-ID is stored already is not written (None).
    Rows go in with one multi-row statement per table: an import writes ten
    thousand mails, and on PostgreSQL every statement is a round trip."""

    def run(session: Session) -> list[Stored | None]:
        # Taken once: new conversations take aliases below, and on PostgreSQL it also
        # orders concurrent imports, so the check for stored Message-IDs stays true.
        lock_creation(session)
        already = stored_by_message_id(session, {mail.message_id for mail in mails})
        writing = [mail for mail in mails if mail.message_id not in already]
        if not writing:
            return [None] * len(mails)
        known = stored_by_message_id(session, {m for mail in writing for m in mail.replies_to})
        placed, newest = _place(session, writing, known)
        session.flush()  # the new conversations, which the rows below refer to
        for mail in writing:
            keep_original(session, mail.raw)
        connection = session.connection()
        seqs = (
            connection.execute(
                _INSERT_MAILS,
                [
                    _mail_row(mail, here, parent)
                    for mail, (here, parent) in zip(writing, placed, strict=True)
                ],
            )
            .scalars()
            .all()
        )
        attachments = [
            row
            for mail, seq in zip(writing, seqs, strict=True)
            for row in _attachment_rows(mail, seq)
        ]
        if attachments:
            connection.execute(_INSERT_ATTACHMENT, attachments)
        deliveries: list[dict[str, Any]] = []
        members: dict[str, list[str]] = {}
        for mail, seq, (here, _) in zip(writing, seqs, placed, strict=True):
            kinds = _recipients(mail)
            deliveries += [
                {"mail_seq": seq, "recipient": name, "kind": kind, "is_read": True,
                 "created_at": mail.created_at}
                for name, kind in kinds.items()
            ]  # fmt: skip
            names = [mail.sender.name, *kinds]
            members.setdefault(here.session_id, []).extend(n for n in names if n != EXTERNAL_NAME)
        if deliveries:
            connection.execute(_INSERT_DELIVERY, deliveries)
        filings = zip(writing, seqs, placed, strict=True)
        file_mails(session, [_placements(mail, seq, here) for mail, seq, (here, _) in filings])
        for conv_id, member_names in members.items():
            add_participants(session, conv_id, member_names)
        connection.execute(_TOUCH, [{"conv_id": c, "when": t} for c, t in newest.items()])
        written = iter(here for here, _ in placed)
        return [None if mail.message_id in already else next(written) for mail in mails]

    return run


def _place(
    session: Session, writing: Sequence[ImportedMail], known: dict[str, Stored]
) -> tuple[list[tuple[Stored, str | None]], dict[str, datetime]]:
    """Each mail's place (its id, its conversation, the mail it answers) and each
    conversation's newest time. An import's conversations open completed: mail of
    the past is not open work; a later mail reopens one as usual."""
    placed: list[tuple[Stored, str | None]] = []
    newest: dict[str, datetime] = {}
    for mail in writing:
        parent = next((known[m] for m in mail.replies_to if m in known), None)
        if parent is not None:
            conv_id = parent.session_id
        else:
            budget = initial_budget(None, mail.sender, mail.to)
            subject = thread_subject(mail.subject)
            conv_id = open_conversation(
                session,
                subject,
                None,
                budget,
                mail.sender.name,
                mail.created_at,
                status="completed",
            ).id
        here = Stored(new_id(), conv_id)
        known.setdefault(mail.message_id, here)
        placed.append((here, parent.mail_id if parent is not None else None))
        newest[conv_id] = max(mail.created_at, newest.get(conv_id, mail.created_at))
    return placed, newest


def thread_subject(subject: str) -> str:
    """A conversation's subject without reply and forward prefixes (`Re: Fwd: Plan` →
    `Plan`), for a thread whose first stored mail is a reply (its root was lost)."""
    while (match := _REPLY_PREFIX.match(subject)) is not None and match.end() < len(subject):
        subject = subject[match.end() :]
    return subject


def _placements(mail: ImportedMail, seq: int, here: Stored) -> tuple[int, list[Placement]]:
    """The IMAP folders of the gateway's humans an imported mail goes into, as for any
    mail (core/mailboxes/uids.py); a name nobody registered yet counts as a human."""
    sender = mail.sender
    human_sender = sender.name if sender.agent is None and sender.name != EXTERNAL_NAME else None
    humans = {e.name for e in (mail.to, *mail.cc) if e.agent is None and e.name != EXTERNAL_NAME}
    placements = new_mail_placements(
        here.session_id, human_sender, sorted(humans), needs_decision=False
    )
    return seq, placements


def _recipients(mail: ImportedMail) -> dict[str, str]:
    """The gateway's own recipients (to first, then cc); external ones get no delivery."""
    kinds: dict[str, str] = {}
    for endpoint, kind in [(mail.to, "to"), *((e, "cc") for e in mail.cc)]:
        if endpoint.name != EXTERNAL_NAME:
            kinds.setdefault(endpoint.name, kind)
    return kinds


def _mail_row(mail: ImportedMail, here: Stored, parent_id: str | None) -> dict[str, Any]:
    return {
        "id": here.mail_id,
        "session_id": here.session_id,
        "parent_id": parent_id,
        "from_name": mail.sender.name,
        "from_path": mail.sender.workspace,
        "to_name": mail.to.name,
        "to_path": mail.to.workspace,
        "cc": [stored_cc(e) for e in mail.cc],
        "subject": mail.subject.strip(),
        "body": mail.body,
        **excerpt_values(mail.body),
        "mail_type": "normal",
        "auto": False,
        "hops": 0,
        "message_id": mail.message_id,
        "raw_sha256": mail.raw.sha256,
        "created_at": mail.created_at,
    }


def _attachment_rows(mail: ImportedMail, seq: int) -> list[dict[str, Any]]:
    return [
        {
            "id": new_id(),
            "owner": mail.sender.name,
            "filename": filename,
            "content_type": content_type,
            "size": size,
            "sha256": sha256,
            "mail_seq": seq,
            "created_at": mail.created_at,
        }
        for filename, content_type, size, sha256 in mail.attachments
    ]

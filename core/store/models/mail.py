"""Conversations, their mails, deliveries and everything a mail carries or records."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, new_id, utcnow


class Conversation(Base):
    """A conversation ("session" in the API and the reference design)."""

    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_created_by_created_at", "created_by", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    alias: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    # Who named it last: "human" renames win over "platform" syncs.
    alias_source: Mapped[str | None] = mapped_column(String(16), default=None)
    subject: Mapped[str] = mapped_column(String(998), default="")
    status: Mapped[str] = mapped_column(String(16), default="active")
    budget_limit: Mapped[int | None] = mapped_column(Integer, default=None)
    budget_used: Mapped[int] = mapped_column(Integer, default=0)
    # The default conversation of a pair of endpoints (see core/mail/conversations.py).
    default_key: Mapped[str | None] = mapped_column(String(1200), unique=True, default=None)
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Participant(Base):
    __tablename__ = "session_participants"

    session_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)


class Mail(Base):
    __tablename__ = "mails"

    seq: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, default=new_id)
    session_id: Mapped[str] = mapped_column(String(36), ForeignKey("sessions.id"), index=True)
    parent_id: Mapped[str | None] = mapped_column(String(36), default=None)
    from_name: Mapped[str] = mapped_column(String(64), index=True)
    from_path: Mapped[str] = mapped_column(String(1024), default="")
    to_name: Mapped[str] = mapped_column(String(64))
    to_path: Mapped[str] = mapped_column(String(1024), default="")
    cc: Mapped[list[str]] = mapped_column(JSON, default=list)
    subject: Mapped[str] = mapped_column(String(998), default="")
    body: Mapped[str] = mapped_column(Text, default="")
    # What a list row shows of the body (core/mail/excerpt.py), made when it is stored;
    # NULL until the backfill reaches a mail stored before the columns existed.
    excerpt: Mapped[str | None] = mapped_column(String(256), default=None)
    # Filled by the database when a writer leaves them out (a Core insert written before
    # the columns existed, e.g. an old-schema test): no Python default to send.
    tasks_done: Mapped[int] = mapped_column(Integer, server_default="0")
    tasks_total: Mapped[int] = mapped_column(Integer, server_default="0")
    mail_type: Mapped[str] = mapped_column(String(32), default="normal")
    auto: Mapped[bool] = mapped_column(Boolean, default=False)
    # Consecutive agent-to-agent mails up to this one (a human's mail resets it to 0).
    hops: Mapped[int] = mapped_column(Integer, default=0)
    message_id: Mapped[str] = mapped_column(String(998), index=True)
    # The bytes it came in as (SMTP, import), kept once per content: a RawMessage's
    # sha256 (no foreign key, as attachments name their files: rows are never deleted).
    raw_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    # Permission requests (mail_type == "permission_request").
    options: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    permission_state: Mapped[str | None] = mapped_column(String(16), default=None)
    decision: Mapped[str | None] = mapped_column(Text, default=None)
    decision_note: Mapped[str | None] = mapped_column(Text, default=None)
    decided_by: Mapped[str | None] = mapped_column(String(64), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(default=None)
    expires_at: Mapped[datetime | None] = mapped_column(default=None)
    action: Mapped[str | None] = mapped_column(Text, default=None)
    action_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index("ix_mails_session_seq", "session_id", "seq"),
        # A mail's replies in order: the tree walk's first-reply and next-sibling probes.
        Index("ix_mails_parent_seq", "parent_id", "seq"),
        # The expiry job's nearest deadline and overdue requests (core/approvals/permissions.py).
        Index("ix_mails_open_deadlines", "permission_state", "expires_at"),
    )


class RawMessage(Base):
    """Original RFC 5322 bytes, once per sha256 however many mails name them
    (core/store/raw_messages.py): one SMTP message to 50 recipients is 50 mails, one row."""

    __tablename__ = "raw_messages"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Over the MIME bounds (core/rendering/mime_bounds.py): served as it is, never
    # walked again. NULL: stored before the mark existed (a reader decides).
    opaque: Mapped[bool | None] = mapped_column(Boolean, nullable=True, default=None)


class Delivery(Base):
    """One row per recipient (to or cc): the per-recipient read, archive and trash state.

    `flagged` and `answered` are the recipient's IMAP `\\Flagged` and `\\Answered`;
    `marked_deleted` their IMAP `\\Deleted` (marked for the EXPUNGE of any session);
    `deleted` puts the mail in their Trash (it is never destroyed); `folder` names a
    personal folder they filed it in (core/mailboxes/placement.py). Keywords are
    rows of `delivery_keywords`.
    """

    __tablename__ = "deliveries"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    mail_seq: Mapped[int] = mapped_column(SeqType, ForeignKey("mails.seq", ondelete="CASCADE"))
    recipient: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(4), default="to")
    is_read: Mapped[bool] = mapped_column(Boolean, default=False)
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    answered: Mapped[bool] = mapped_column(Boolean, default=False)
    marked_deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    draft: Mapped[bool] = mapped_column(Boolean, default=False)  # IMAP's \\Draft
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    # The key of the recipient's personal folder holding it (`archived` is true then).
    folder: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("mail_seq", "recipient", name="uq_deliveries_mail_recipient"),
        Index("ix_deliveries_inbox", "recipient", "deleted", "archived", "is_read", "mail_seq"),
        # status=all and archived listings, newest first, without sorting the inbox.
        Index("ix_deliveries_recipient_seq", "recipient", "deleted", "archived", "mail_seq"),
    )


class DeliveryKeyword(Base):
    """An IMAP keyword (RFC 3501 §2.3.2: `$Label1`, `$Junk`, …) a recipient set on a mail.

    Per recipient like the delivery's flags (core/mailboxes/keywords.py); the second
    index lists a recipient's keywords in use (IMAP's FLAGS response).
    """

    __tablename__ = "delivery_keywords"

    recipient: Mapped[str] = mapped_column(String(64), primary_key=True)
    mail_seq: Mapped[int] = mapped_column(
        SeqType, ForeignKey("mails.seq", ondelete="CASCADE"), primary_key=True
    )
    keyword: Mapped[str] = mapped_column(String(255), primary_key=True)

    __table_args__ = (Index("ix_delivery_keywords_recipient_keyword", "recipient", "keyword"),)


class Attachment(Base):
    """An upload's metadata; its bytes live once per sha256 on disk (core/store/blobs.py).

    `mail_seq` is empty until a mail carries it; an attachment belongs to one mail
    (a forward gets new rows pointing at the same content).
    """

    __tablename__ = "attachments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    mail_seq: Mapped[int | None] = mapped_column(SeqType, ForeignKey("mails.seq"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    # Serves both "the attachments of these mails" and "unsent ones older than t".
    __table_args__ = (Index("ix_attachments_mail_created", "mail_seq", "created_at"),)


class Event(Base):
    """An event for one recipient, written in the transaction of the change it reports."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    recipient: Mapped[str] = mapped_column(String(64))
    type: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

    __table_args__ = (Index("ix_events_recipient_id", "recipient", "id"),)


class Meta(Base):
    """Small key/value facts about the store (e.g. how far events were pruned)."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class AliasProposal(Base):
    """An agent's proposal to rename a conversation; a human accepts or rejects it."""

    __tablename__ = "alias_proposals"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    session_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("sessions.id", ondelete="CASCADE"), index=True
    )
    alias: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text, default="")
    proposed_by: Mapped[str] = mapped_column(String(64))
    mail_id: Mapped[str | None] = mapped_column(String(36), default=None)
    state: Mapped[str] = mapped_column(String(16), default="pending")
    decided_by: Mapped[str | None] = mapped_column(String(64), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class FormerAlias(Base):
    """An alias a conversation held before a rename: still its own, for its participants.

    A mail client that synced a mail before the rename replies to the old address;
    it keeps reaching the conversation, and no other conversation is ever given it.
    """

    __tablename__ = "session_former_aliases"

    alias: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("sessions.id", ondelete="CASCADE"), index=True
    )
    retired_at: Mapped[datetime] = mapped_column(default=utcnow)


class Draft(Base):
    """A human's unsent mail. Everything is optional until it is sent; IMAP `Drafts` shows it."""

    __tablename__ = "drafts"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64))
    # Canonical native addresses, checked against the grammar but not for deliverability.
    to: Mapped[str | None] = mapped_column(String(1200), default=None)
    cc: Mapped[list[str]] = mapped_column(JSON, default=list)
    subject: Mapped[str] = mapped_column(String(998), default="")
    body: Mapped[str] = mapped_column(Text, default="")
    reply_to: Mapped[str | None] = mapped_column(String(64), default=None)
    session_alias: Mapped[str | None] = mapped_column(String(64), default=None)
    # A number of rounds or "unlimited"; NULL = the receiving agent's default.
    budget: Mapped[str | None] = mapped_column(String(16), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Its UID in the owner's IMAP Drafts, new for every saved version (core/mailboxes/drafts.py).
    imap_uid: Mapped[int | None] = mapped_column(BigInteger, default=None)
    # The Message-ID a mail client gave it (IMAP APPEND); a new version replaces it.
    message_id: Mapped[str | None] = mapped_column(String(255), default=None)

    __table_args__ = (
        Index("ix_drafts_owner_updated", "owner", "updated_at"),
        Index("ix_drafts_owner_uid", "owner", "imap_uid", unique=True),
    )


class IdempotencyRecord(Base):
    """A write made under an `Idempotency-Key`, kept 24 hours: the first result, and
    a digest of the request it answered (draft-ietf-httpapi-idempotency-key-header).

    The primary key is the uniqueness rule (one record per caller, endpoint and key),
    and the row is inserted in the transaction of the write, before it: a concurrent
    request with the same key waits on that key and then finds the committed result.
    `response` is null only inside that transaction.
    """

    __tablename__ = "idempotency_keys"

    principal: Mapped[str] = mapped_column(String(64), primary_key=True)
    endpoint: Mapped[str] = mapped_column(String(32), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_sha256: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer, default=200)
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

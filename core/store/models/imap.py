"""The IMAP folders of each person: UIDs per folder, the mod-sequences, what left."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, utcnow


class ImapFolder(Base):
    """One IMAP mailbox of a human and its UID counter (RFC 3501 §2.3.1.1).

    `key` names it stably: `inbox`, `sent`, `drafts`, `archive`, `trash`,
    `decision`, or `session:<conversation id>` (so the folder follows renames).
    `next_uid` advances, under this row's lock, in the transaction that puts a
    message in the folder (core/mailboxes/uids.py); `highest_modseq` advances, under
    the same lock, whenever a message enters or leaves the folder or its flags
    change (RFC 7162 §3.1.1: a mailbox's mod-sequence only grows).
    """

    __tablename__ = "imap_folders"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(64))
    uid_validity: Mapped[int] = mapped_column(BigInteger)
    next_uid: Mapped[int] = mapped_column(BigInteger, default=1)
    highest_modseq: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # Expunge records at or below this mod-sequence were pruned (core/mailboxes/expunged.py):
    # a session or QRESYNC client that knows only an older one cannot be told exactly.
    vanished_horizon: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # \Recent (RFC 3501 §2.3.2, core/mailboxes/recent.py): the highest UID a session has
    # claimed as recent; a message above it is recent to the next session that sees it.
    recent_uid: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # `recent_uid` as it was before the last claim: what the claim's UPDATE … RETURNING reads back.
    recent_claimed_from: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # A personal folder's full name (core/mailboxes/personal.py); NULL for the gateway's own.
    name: Mapped[str | None] = mapped_column(String(1024), nullable=True, default=None)

    __table_args__ = (
        UniqueConstraint("owner", "key", name="uq_imap_folders_owner_key"),
        Index("ux_imap_folders_owner_name", "owner", "name", unique=True),
    )


class ImapSubscription(Base):
    """What SUBSCRIBE or UNSUBSCRIBE last said of a name (RFC 3501 §6.3.6: a name may be
    subscribed whether or not it exists). A folder with no row counts as subscribed."""

    __tablename__ = "imap_subscriptions"

    owner: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(1024), primary_key=True)
    subscribed: Mapped[bool] = mapped_column(Boolean)


class ImapUid(Base):
    """A mail in an IMAP folder under its UID; deleted when the mail leaves the folder.

    `modseq` is the folder's mod-sequence of the last change to this message
    (entering the folder, a flag), so a session reads only what changed.
    """

    __tablename__ = "imap_uids"

    folder_id: Mapped[int] = mapped_column(
        SeqType, ForeignKey("imap_folders.id", ondelete="CASCADE"), primary_key=True
    )
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    mail_seq: Mapped[int] = mapped_column(SeqType, ForeignKey("mails.seq", ondelete="CASCADE"))
    modseq: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")

    __table_args__ = (
        UniqueConstraint("folder_id", "mail_seq", name="uq_imap_uids_folder_mail"),
        Index("ix_imap_uids_folder_modseq", "folder_id", "modseq"),
    )


class ImapExpunged(Base):
    """A message that left a folder, at the folder's mod-sequence of its leaving: what
    a session that knew the folder at an older mod-sequence must expunge (RFC 7162
    §3.2.5.2 keeps such a record for QRESYNC's VANISHED in the same way)."""

    __tablename__ = "imap_expunged"

    folder_id: Mapped[int] = mapped_column(
        SeqType, ForeignKey("imap_folders.id", ondelete="CASCADE"), primary_key=True
    )
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    modseq: Mapped[int] = mapped_column(BigInteger)
    # When it left; records older than the retention are pruned (NULL: from before 0013q).
    expunged_at: Mapped[datetime | None] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_imap_expunged_folder_modseq", "folder_id", "modseq"),)

"""A human's mailboxes outside the gateway, the codes that verify them, and the reply
tokens issued to them (core/replies/, core/mail/outside_copies.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, new_id, utcnow


class ExternalAddress(Base):
    """A mailbox a human registered (an RFC 5321 mailbox, core/address/mailto.py); it is
    used only once `verified_at` is set, by the code mailed to it."""

    __tablename__ = "external_addresses"
    __table_args__ = (UniqueConstraint("owner", "address"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    address: Mapped[str] = mapped_column(String(254), index=True)
    verified_at: Mapped[datetime | None] = mapped_column(default=None)
    # Whether permission requests and questions are sent there (once verified), and
    # whether other mail to the human is.
    requests: Mapped[bool] = mapped_column(Boolean, default=True)
    other_mail: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class VerificationCode(Base):
    """One code mailed to an external address; only its SHA-256 is kept. The rows stay
    after the address goes (`address_id` NULL), so the hourly limit counts them."""

    __tablename__ = "external_address_codes"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    address_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("external_addresses.id", ondelete="SET NULL"), index=True
    )
    code_sha256: Mapped[str] = mapped_column(String(64))
    tries: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    expires_at: Mapped[datetime] = mapped_column()
    used_at: Mapped[datetime | None] = mapped_column(default=None)


class ReplyToken(Base):
    """One reply address issued: a request or question's copy sent to one external
    address of one human. `id` is the token's public half; the MAC half is never stored
    (core/secrets/reply_token.py recomputes it with the sealed key). `used_at` is set by
    the reply that decided with it, so a replay decides nothing."""

    __tablename__ = "reply_tokens"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    mail_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("mails.id", ondelete="CASCADE"), index=True
    )
    owner: Mapped[str] = mapped_column(String(64))
    address_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("external_addresses.id", ondelete="SET NULL"), index=True
    )
    address: Mapped[str] = mapped_column(String(254))
    issued_at: Mapped[datetime] = mapped_column(default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(default=None)


class OutsideReply(Base):
    """What the MX listener found of a mail it stored from outside: the authentication
    results, whether it decided, and why not (the mark the human and the agent see)."""

    __tablename__ = "outside_replies"

    mail_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("mails.id", ondelete="CASCADE"), primary_key=True
    )
    owner: Mapped[str] = mapped_column(String(64), index=True)
    sender: Mapped[str] = mapped_column(String(254))  # the From address as written
    token_id: Mapped[str | None] = mapped_column(String(32), default=None)
    decided: Mapped[bool] = mapped_column(Boolean, default=False)
    reason: Mapped[str] = mapped_column(String(200), default="")
    authentication_results: Mapped[str] = mapped_column(String(2000), default="")
    received_at: Mapped[datetime] = mapped_column(default=utcnow)

"""Agents mailing outside under a leash: each agent's allowlist, and the mails held
for a human's decision because a recipient is not on it (core/outbound/allowlist.py,
core/mail/outside_hold.py, core/approvals/held_outbound.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, utcnow


class OutboundAllowlistEntry(Base):
    """One address (`bob@example.com`), domain (`example.com`) or subdomain pattern
    (`*.example.com`) an agent may mail directly, as an admin wrote it (canonical form)."""

    __tablename__ = "outbound_allowlist"

    agent: Mapped[str] = mapped_column(String(64), primary_key=True)
    entry: Mapped[str] = mapped_column(String(256), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HeldOutbound(Base):
    """A stored mail's outside recipients that were not on its agent's allowlist: no job
    until the permission request `request_id` is approved, and then exactly once
    (`held` → `released` in the decision's transaction; `refused` when rejected or
    expired)."""

    __tablename__ = "held_outbound"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    mail_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("mails.id", ondelete="CASCADE"), index=True
    )
    request_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("mails.id", ondelete="CASCADE"), unique=True
    )
    sender: Mapped[str] = mapped_column(String(64))
    envelope_sender: Mapped[str] = mapped_column(String(2048))
    recipients: Mapped[list[str]] = mapped_column(JSON, default=list)
    # held → released (its jobs queued) | refused (rejected, expired or outbound withdrawn)
    state: Mapped[str] = mapped_column(String(16), default="held")
    settled_at: Mapped[datetime | None] = mapped_column(default=None)

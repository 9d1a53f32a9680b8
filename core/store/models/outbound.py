"""Outbound mail: one job per outside recipient of a stored mail, until it is delivered."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType, utcnow


class OutboundJob(Base):
    """Written in the transaction of the mail it delivers, so a committed mail is never
    without its jobs (nor a job without its mail); sent by whichever replica claims it
    (core/outbound/queue.py), kept after it is settled for the hourly rate limits and, once
    sent, as long as a bounce may come back (core/outbound/prune.py)."""

    __tablename__ = "outbound_jobs"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    mail_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("mails.id", ondelete="CASCADE"), index=True
    )
    sender: Mapped[str] = mapped_column(String(64), index=True)  # the name that sent it
    recipient: Mapped[str] = mapped_column(String(254))  # RFC 5321 mailbox, core/address/mailto.py
    recipient_domain: Mapped[str] = mapped_column(String(255), index=True)
    # The sender's own address; on the wire MAIL FROM is the job's bounce address
    # (core/relay/envelope.py), so a bounce finds the job.
    envelope_sender: Mapped[str] = mapped_column(String(2048))
    # queued → sent | failed (a 5xx) | expired (given up after the give-up time);
    # sent → bounced (a bounce came back: core/relay/bounce_record.py)
    state: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # The next attempt: not tried before this time (the backoff after a failed try).
    due_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    # A replica's claim (the lease of core/store/leases.py).
    claimed_until: Mapped[datetime | None] = mapped_column(default=None)
    first_queued_at: Mapped[datetime] = mapped_column(default=utcnow)
    settled_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
    last_error: Mapped[str] = mapped_column(String(1000), default="")

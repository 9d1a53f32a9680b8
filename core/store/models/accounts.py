"""Who uses the gateway: people, agents and their keys; the store's own settings."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, new_id, utcnow


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(128))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    # May send mail outside the gateway (core/outbound/); an admin turns it on.
    # Filled by the database when a writer leaves it out (an old-schema insert, a migration).
    outbound_mail: Mapped[bool] = mapped_column(Boolean, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Agent(Base):
    __tablename__ = "agents"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    workspaces: Mapped[list[dict[str, str]]] = mapped_column(JSON, default=list)
    platform: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[str] = mapped_column(String(16), default="offline")
    last_seen: Mapped[datetime | None] = mapped_column(default=None)
    default_budget: Mapped[int | None] = mapped_column(Integer, default=20)
    # Filled by the database when a writer leaves it out (an old-schema insert, a migration).
    outbound_mail: Mapped[bool] = mapped_column(Boolean, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Key(Base):
    """An agent key, a user key, or a web login (kind `login`): only the SHA-256 is kept."""

    __tablename__ = "keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(String(16))
    owner: Mapped[str | None] = mapped_column(String(64), index=True, default=None)
    label: Mapped[str] = mapped_column(String(200), default="")
    lifecycle: Mapped[str] = mapped_column(String(16))
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime | None] = mapped_column(default=None)
    used_at: Mapped[datetime | None] = mapped_column(default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    created_by: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Web logins only: what opened it, and when it was last used (within a minute).
    user_agent: Mapped[str] = mapped_column(String(200), default="", server_default="")
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)

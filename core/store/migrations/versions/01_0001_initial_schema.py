"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 07:05:18.478798
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:

    op.create_table(
        "agents",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("workspaces", sa.JSON(), nullable=False),
        sa.Column("platform", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=True),
        sa.Column("default_budget", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("recipient", sa.String(length=64), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_events_created_at"), ["created_at"], unique=False)
        batch_op.create_index("ix_events_recipient_id", ["recipient", "id"], unique=False)

    op.create_table(
        "keys",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=True),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("lifecycle", sa.String(length=16), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_sha256"),
    )
    with op.batch_alter_table("keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_keys_owner"), ["owner"], unique=False)

    op.create_table(
        "meta",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("alias", sa.String(length=64), nullable=True),
        sa.Column("alias_source", sa.String(length=16), nullable=True),
        sa.Column("subject", sa.String(length=998), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("budget_limit", sa.Integer(), nullable=True),
        sa.Column("budget_used", sa.Integer(), nullable=False),
        sa.Column("default_key", sa.String(length=1200), nullable=True),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("alias"),
        sa.UniqueConstraint("default_key"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=128), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "mails",
        sa.Column(
            "seq",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("parent_id", sa.String(length=36), nullable=True),
        sa.Column("from_name", sa.String(length=64), nullable=False),
        sa.Column("from_path", sa.String(length=1024), nullable=False),
        sa.Column("to_name", sa.String(length=64), nullable=False),
        sa.Column("to_path", sa.String(length=1024), nullable=False),
        sa.Column("cc", sa.JSON(), nullable=False),
        sa.Column("subject", sa.String(length=998), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("mail_type", sa.String(length=32), nullable=False),
        sa.Column("auto", sa.Boolean(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=True),
        sa.Column("permission_state", sa.String(length=16), nullable=True),
        sa.Column("decision", sa.Text(), nullable=True),
        sa.Column("decision_note", sa.Text(), nullable=True),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("action", sa.Text(), nullable=True),
        sa.Column("action_sha256", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
        ),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("id"),
    )
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mails_from_name"), ["from_name"], unique=False)
        batch_op.create_index(batch_op.f("ix_mails_message_id"), ["message_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_mails_parent_id"), ["parent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_mails_session_id"), ["session_id"], unique=False)
        batch_op.create_index("ix_mails_session_seq", ["session_id", "seq"], unique=False)

    op.create_table(
        "session_participants",
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("session_id", "name"),
    )
    with op.batch_alter_table("session_participants", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_session_participants_name"), ["name"], unique=False)

    op.create_table(
        "deliveries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("mail_seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("recipient", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=4), nullable=False),
        sa.Column("is_read", sa.Boolean(), nullable=False),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["mail_seq"], ["mails.seq"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("mail_seq", "recipient", name="uq_deliveries_mail_recipient"),
    )
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.create_index(
            "ix_deliveries_inbox", ["recipient", "archived", "is_read", "mail_seq"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index("ix_deliveries_inbox")

    op.drop_table("deliveries")
    with op.batch_alter_table("session_participants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_session_participants_name"))

    op.drop_table("session_participants")
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.drop_index("ix_mails_session_seq")
        batch_op.drop_index(batch_op.f("ix_mails_session_id"))
        batch_op.drop_index(batch_op.f("ix_mails_parent_id"))
        batch_op.drop_index(batch_op.f("ix_mails_message_id"))
        batch_op.drop_index(batch_op.f("ix_mails_from_name"))

    op.drop_table("mails")
    op.drop_table("users")
    op.drop_table("sessions")
    op.drop_table("meta")
    with op.batch_alter_table("keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_keys_owner"))

    op.drop_table("keys")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_recipient_id")
        batch_op.drop_index(batch_op.f("ix_events_created_at"))

    op.drop_table("events")
    op.drop_table("agents")

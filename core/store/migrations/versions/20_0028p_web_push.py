"""web push: browser subscriptions per person, and the pushes still to send

Revision ID: 0028p
Revises: 0027r
Create Date: 2026-12-04

A permission request or a question to a person writes one push job per subscription of
theirs in the mail's own transaction; one replica claims and sends it after COMMIT
(core/push/). The VAPID key pair is a `meta` row, made on first start.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028p"
down_revision = "0027r"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("endpoint", sa.String(length=2048), nullable=False),
        sa.Column("p256dh", sa.String(length=128), nullable=False),
        sa.Column("auth", sa.String(length=64), nullable=False),
        sa.Column("user_agent", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("endpoint"),
    )
    with op.batch_alter_table("push_subscriptions") as batch:
        batch.create_index(batch.f("ix_push_subscriptions_owner"), ["owner"], unique=False)
    op.create_table(
        "push_jobs",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("subscription_id", sa.String(length=36), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["subscription_id"], ["push_subscriptions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("push_jobs") as batch:
        batch.create_index(batch.f("ix_push_jobs_due_at"), ["due_at"], unique=False)
        batch.create_index(
            batch.f("ix_push_jobs_subscription_id"), ["subscription_id"], unique=False
        )


def downgrade() -> None:
    op.drop_table("push_jobs")
    op.drop_table("push_subscriptions")

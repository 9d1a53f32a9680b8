"""webhooks: the endpoints people and admins register, and the deliveries owed to them

Revision ID: 0029w
Revises: 0028l
Create Date: 2026-12-04

A change that writes an event also writes one delivery per endpoint that hears it, in
the same transaction; one replica claims and posts it after COMMIT (core/webhooks/).
Each endpoint's signing secret is kept sealed (core/secrets/).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029w"
down_revision = "0028l"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.String(length=8), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        sa.Column("secret", sa.String(length=200), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=200), nullable=False),
        sa.Column(
            "hears_after", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.create_index(batch.f("ix_webhook_endpoints_owner"), ["owner"], unique=False)
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("endpoint_id", sa.String(length=36), nullable=False),
        sa.Column("event_id", _ID, nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.create_index(batch.f("ix_webhook_deliveries_due_at"), ["due_at"], unique=False)
        batch.create_index(
            "ix_webhook_deliveries_endpoint_event", ["endpoint_id", "event_id"], unique=False
        )
    # The fan-out's cursor (core/webhooks/fanout.py): the events before now are nobody's.
    op.execute(
        "INSERT INTO meta (key, value) "
        "SELECT 'webhooks_through_event', CAST(COALESCE(MAX(id), 0) AS VARCHAR(20)) FROM events"
    )


def downgrade() -> None:
    op.execute("DELETE FROM meta WHERE key = 'webhooks_through_event'")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")

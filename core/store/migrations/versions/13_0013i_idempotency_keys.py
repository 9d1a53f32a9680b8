"""idempotency keys: the first result of a write made under an Idempotency-Key

Revision ID: 0013i
Revises: 0012s
Create Date: 2026-12-01

A bridge that crashed after sending but before it learned the result sends
again with the same `Idempotency-Key` and gets the first result, so a
conversation gets exactly one reply. The record commits in
the transaction of the mail it answers; records older than 24 hours are pruned.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013i"
down_revision = "0012s"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("principal", sa.String(64), primary_key=True),
        sa.Column("endpoint", sa.String(32), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_created_at", table_name="idempotency_keys")
    op.drop_table("idempotency_keys")

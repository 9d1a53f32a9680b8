"""agents mailing outside under a leash: allowlists, and mails held for a decision

Revision ID: 0030a
Revises: 0029x
Create Date: 2026-12-04

`outbound_allowlist` holds, per agent, the addresses and domains it may mail directly
(core/outbound/allowlist.py); `held_outbound` the outside recipients of a stored mail
that were not on it, waiting for the permission request that asks a human
(core/approvals/held_outbound.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030a"
down_revision = "0029x"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "outbound_allowlist",
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("entry", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("agent", "entry"),
    )
    op.create_table(
        "held_outbound",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("mail_id", sa.String(length=36), nullable=False),
        sa.Column("request_id", sa.String(length=36), nullable=False),
        sa.Column("sender", sa.String(length=64), nullable=False),
        sa.Column("envelope_sender", sa.String(length=2048), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["mail_id"], ["mails.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["request_id"], ["mails.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("request_id"),
    )
    with op.batch_alter_table("held_outbound") as batch:
        batch.create_index(batch.f("ix_held_outbound_mail_id"), ["mail_id"], unique=False)


def downgrade() -> None:
    op.drop_table("held_outbound")
    op.drop_table("outbound_allowlist")

"""kept structures: what each stored message is made of, computed once

Revision ID: 0026s
Revises: 0026f
Create Date: 2026-12-03

IMAP's ENVELOPE, BODYSTRUCTURE and the header fields clients fetch by name are worked
out when a message is stored (core/mime/kept.py) and kept in these tables, so a
listing parses nothing. The tables start empty: the mail already stored is filled by
the gateway's background backfill, in batches, after it starts (core/rendering/backfill.py),
not here; until a message is filled, IMAP computes its structure when it reads it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026s"
down_revision = "0026f"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_table(
        "message_structures",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("structure", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["sha256"], ["raw_messages.sha256"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("sha256"),
    )
    op.create_table(
        "rendered_structures",
        sa.Column("mail_seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("content_key", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("structure", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["mail_seq"], ["mails.seq"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("mail_seq"),
    )


def downgrade() -> None:
    op.drop_table("rendered_structures")
    op.drop_table("message_structures")

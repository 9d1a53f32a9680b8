"""imap QRESYNC: when each expunge record was made, and how far they were pruned

Revision ID: 0013q
Revises: 0012s
Create Date: 2026-12-01

QRESYNC (RFC 7162 §3.2) answers a client that knew a folder at mod-sequence m
with the UIDs expunged since (`VANISHED (EARLIER)`), read from `imap_expunged`.
Those records are now pruned after a retention period
(`AGENTMAIL_IMAP_EXPUNGE_RETENTION_DAYS`), so each record says when it was made
(`expunged_at`; NULL for the records already there, pruned first) and each folder
how far its records were pruned (`vanished_horizon`): a client or session that
knows only an older mod-sequence is resynchronised from the whole folder instead.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013q"
down_revision = "0013i"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("imap_folders") as batch:
        batch.add_column(
            sa.Column("vanished_horizon", sa.BigInteger(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("imap_expunged") as batch:
        batch.add_column(sa.Column("expunged_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("imap_expunged") as batch:
        batch.drop_column("expunged_at")
    with op.batch_alter_table("imap_folders") as batch:
        batch.drop_column("vanished_horizon")

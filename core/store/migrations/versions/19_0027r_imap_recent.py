"""imap \\Recent: each folder's watermark of the UIDs a session has claimed as recent

Revision ID: 0027r
Revises: 0026s
Create Date: 2026-12-04

RFC 3501 §2.3.2: a message is `\\Recent` in the first session told of it. Each folder
keeps the highest UID a session has claimed (`recent_uid`) and, for the claim's
`UPDATE … RETURNING`, the value it had before the last claim (`recent_claimed_from`;
core/mailboxes/recent.py). The mail already in a folder counts as claimed: no
session is told of years of mail as new the day the gateway is upgraded.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027r"
down_revision = "0026s"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("imap_folders") as batch:
        batch.add_column(
            sa.Column("recent_uid", sa.BigInteger(), server_default="0", nullable=False)
        )
        batch.add_column(
            sa.Column("recent_claimed_from", sa.BigInteger(), server_default="0", nullable=False)
        )
    op.execute("UPDATE imap_folders SET recent_uid = next_uid - 1, recent_claimed_from = 0")


def downgrade() -> None:
    with op.batch_alter_table("imap_folders") as batch:
        batch.drop_column("recent_claimed_from")
        batch.drop_column("recent_uid")

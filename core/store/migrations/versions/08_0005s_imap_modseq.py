"""imap change tracking: a mod-sequence per folder, per message, and expunge records

Revision ID: 0005s
Revises: 0005f
Create Date: 2026-11-30

An IMAP session used to re-read its whole selected folder on every command
(0.3-0.5 s at 10,000 messages). Now each folder counts its changes
(`imap_folders.highest_modseq`, advanced under the folder row's lock like
`next_uid`), each message row carries the mod-sequence of its last change, and
a message leaving a folder leaves a record in `imap_expunged`: a command reads
only what changed since the mod-sequence its session last saw (RFC 7162 §3.1).

The upgrade also removes from "Needs decision" the requests no longer open:
that folder's contents used to be filtered on every read; now a decision takes
the request out of the folder (core/approvals/permissions.py), as a change sessions see.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005s"
down_revision = "0005f"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("imap_folders") as batch:
        batch.add_column(
            sa.Column("highest_modseq", sa.BigInteger(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("imap_uids") as batch:
        batch.add_column(sa.Column("modseq", sa.BigInteger(), server_default="0", nullable=False))
    op.create_index("ix_imap_uids_folder_modseq", "imap_uids", ["folder_id", "modseq"])
    op.create_table(
        "imap_expunged",
        sa.Column("folder_id", _ID, nullable=False),
        sa.Column("uid", sa.BigInteger(), nullable=False),
        sa.Column("modseq", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["folder_id"], ["imap_folders.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("folder_id", "uid"),
    )
    op.create_index("ix_imap_expunged_folder_modseq", "imap_expunged", ["folder_id", "modseq"])
    op.execute(
        "DELETE FROM imap_uids WHERE folder_id IN "
        "(SELECT id FROM imap_folders WHERE key = 'decision') "
        "AND mail_seq IN (SELECT seq FROM mails WHERE permission_state <> 'open')"
    )


def downgrade() -> None:
    op.drop_index("ix_imap_expunged_folder_modseq", table_name="imap_expunged")
    op.drop_table("imap_expunged")
    op.drop_index("ix_imap_uids_folder_modseq", table_name="imap_uids")
    with op.batch_alter_table("imap_uids") as batch:
        batch.drop_column("modseq")
    with op.batch_alter_table("imap_folders") as batch:
        batch.drop_column("highest_modseq")

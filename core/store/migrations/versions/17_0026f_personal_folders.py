"""personal folders: a human's own IMAP folders, the mail filed in them, subscriptions

Revision ID: 0026f
Revises: 0015a
Create Date: 2026-12-03

A human creates, renames and deletes folders of their own (IMAP CREATE, the web UI,
REST). `imap_folders.name` is such a folder's full name (Unicode, `/` between
levels); the gateway's own folders keep it NULL. `deliveries.folder` is the key of
the personal folder a recipient filed a mail in (NULL: INBOX or Archive as
`archived` says; Trash still wins), `deliveries.draft` the recipient's IMAP `\\Draft`
(a message a client files as a draft outside Drafts). `imap_subscriptions` keeps what SUBSCRIBE and
UNSUBSCRIBE said of a name (RFC 3501 §6.3.6: a name may be subscribed whether or
not it exists); a folder nobody said anything of counts as subscribed.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026f"
down_revision = "0015a"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("imap_folders") as batch:
        batch.add_column(sa.Column("name", sa.String(length=1024), nullable=True))
    op.create_index("ux_imap_folders_owner_name", "imap_folders", ["owner", "name"], unique=True)
    with op.batch_alter_table("deliveries") as batch:
        batch.add_column(sa.Column("folder", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("draft", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "imap_subscriptions",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("subscribed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("owner", "name"),
    )


def downgrade() -> None:
    op.drop_table("imap_subscriptions")
    with op.batch_alter_table("deliveries") as batch:
        batch.drop_column("draft")
        batch.drop_column("folder")
    op.drop_index("ux_imap_folders_owner_name", table_name="imap_folders")
    with op.batch_alter_table("imap_folders") as batch:
        batch.drop_column("name")

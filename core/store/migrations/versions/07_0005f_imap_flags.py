"""imap flags and trash: `\\Flagged`, `\\Answered` and deleted (Trash) per recipient; draft UIDs

Revision ID: 0005f
Revises: 0005i
Create Date: 2026-11-30

`deliveries` gains `flagged` and `answered` (IMAP flags kept per recipient, like
`is_read`) and `deleted`: the mail is in the recipient's Trash (nothing is ever
destroyed; restoring clears it). Inbox listings leave deleted mail out, so both
inbox indexes get `deleted` right after `recipient` and stay a prefix of every
listing's filter (see 0002t for why the order matters).

`drafts` gains `imap_uid`, the draft's UID in its owner's `Drafts` folder (a new
one for every saved version: an IMAP message never changes), and `message_id`,
the Message-ID a mail client gave the draft it APPENDed. Existing drafts are
numbered in the order they were created.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005f"
down_revision = "0005i"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        for name in ("flagged", "answered", "deleted"):
            batch_op.add_column(
                sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false())
            )
        batch_op.drop_index("ix_deliveries_inbox")
        batch_op.drop_index("ix_deliveries_recipient_seq")
        batch_op.create_index(
            "ix_deliveries_inbox", ["recipient", "deleted", "archived", "is_read", "mail_seq"]
        )
        batch_op.create_index(
            "ix_deliveries_recipient_seq", ["recipient", "deleted", "archived", "mail_seq"]
        )
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("imap_uid", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("message_id", sa.String(length=255), nullable=True))
        batch_op.create_index("ix_drafts_owner_uid", ["owner", "imap_uid"], unique=True)
    _number_existing_drafts()


def _number_existing_drafts() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, owner FROM drafts ORDER BY created_at, id")).all()
    taken: dict[str, int] = {}
    for draft_id, owner in rows:
        taken[owner] = taken.get(owner, 0) + 1
        bind.execute(
            sa.text("UPDATE drafts SET imap_uid = :uid WHERE id = :id"),
            {"uid": taken[owner], "id": draft_id},
        )
    for owner, last in taken.items():
        bind.execute(
            sa.text(
                "UPDATE imap_folders SET next_uid = :next WHERE owner = :owner AND key = 'drafts'"
            ),
            {"next": last + 1, "owner": owner},
        )


def downgrade() -> None:
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.drop_index("ix_drafts_owner_uid")
        batch_op.drop_column("message_id")
        batch_op.drop_column("imap_uid")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index("ix_deliveries_recipient_seq")
        batch_op.drop_index("ix_deliveries_inbox")
        batch_op.create_index(
            "ix_deliveries_inbox", ["recipient", "archived", "is_read", "mail_seq"]
        )
        batch_op.create_index("ix_deliveries_recipient_seq", ["recipient", "archived", "mail_seq"])
        for name in ("deleted", "answered", "flagged"):
            batch_op.drop_column(name)

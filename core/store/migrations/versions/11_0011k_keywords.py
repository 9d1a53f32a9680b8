"""imap keywords and `\\Deleted` kept per recipient: `delivery_keywords`, `marked_deleted`

Revision ID: 0011k
Revises: 0010w
Create Date: 2026-12-01

`\\Deleted` lasted one IMAP session and keywords (`$Label1`, `$Junk`, …) were
dropped. `deliveries` gains `marked_deleted` (the recipient's
`\\Deleted`, which any session's EXPUNGE acts on), and `delivery_keywords` holds
the keywords each recipient set on a mail, one row each.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011k"
down_revision = "0010w"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("marked_deleted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "delivery_keywords",
        sa.Column("recipient", sa.String(length=64), nullable=False),
        sa.Column("mail_seq", _SEQ, nullable=False),
        sa.Column("keyword", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(["mail_seq"], ["mails.seq"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("recipient", "mail_seq", "keyword"),
    )
    op.create_index(
        "ix_delivery_keywords_recipient_keyword",
        "delivery_keywords",
        ["recipient", "keyword"],
    )


def downgrade() -> None:
    op.drop_index("ix_delivery_keywords_recipient_keyword", table_name="delivery_keywords")
    op.drop_table("delivery_keywords")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_column("marked_deleted")

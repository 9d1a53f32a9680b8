"""tree and inbox indexes: replies of a mail in seq order; inbox pages in seq order

Revision ID: 0002t
Revises: 0002a
Create Date: 2026-12-01

The tree walk (core/mail/tree_sql.py) asks, at every step, for a mail's first reply
and for the next sibling after a seq. PostgreSQL's btree on `parent_id` alone
keeps equal keys in heap order, so both became a sort of all the siblings at
every step. On (parent_id, seq) each is one
index probe. SQLite's old index already ended in the rowid (= seq); the new one
is the same there. It replaces ix_mails_parent_id, whose lookups it serves.

An inbox page with status=all (and archived) filters on (recipient, archived)
and pages by mail_seq; ix_deliveries_inbox has is_read in between, so the whole
inbox was sorted for each page (bench/inbox.py). On (recipient, archived,
mail_seq) the page is the first 50 index entries.
"""

from __future__ import annotations

from alembic import op

revision = "0002t"
down_revision = "0002a"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_index("ix_mails_parent_seq", "mails", ["parent_id", "seq"], unique=False)
    op.drop_index("ix_mails_parent_id", table_name="mails")
    op.create_index(
        "ix_deliveries_recipient_seq", "deliveries", ["recipient", "archived", "mail_seq"]
    )


def downgrade() -> None:
    op.drop_index("ix_deliveries_recipient_seq", table_name="deliveries")
    op.create_index("ix_mails_parent_id", "mails", ["parent_id"], unique=False)
    op.drop_index("ix_mails_parent_seq", table_name="mails")

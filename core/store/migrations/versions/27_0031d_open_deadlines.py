"""open deadlines: an index on the permission requests' state and deadline

Revision ID: 0031d
Revises: 0030e
Create Date: 2026-12-05

The expiry job asks for the nearest deadline of an open request and for the requests
past theirs (core/approvals/permissions.py); without an index each question read the
whole `mails` table. Built in the migration's transaction: on PostgreSQL, writes to
`mails` wait for it, about half a second for a million mails.
"""

from __future__ import annotations

from alembic import op

revision = "0031d"
down_revision = "0030e"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_index("ix_mails_open_deadlines", "mails", ["permission_state", "expires_at"])


def downgrade() -> None:
    op.drop_index("ix_mails_open_deadlines", table_name="mails")

"""imported conversations: threads with an outside participant are history, not open work

Revision ID: 0028o
Revises: 0028p
Create Date: 2026-12-04

An import (mbox, Maildir, IMAP) opens its conversations `completed` (core/mail/imported.py):
an archive's thread is nobody's open work. Conversations imported before then were
opened `active`; those with an outside sender or recipient (stored with the empty
name, core/identity/external.py) can only have come from an import, so they are
completed here. A later mail in one reopens it as any mail does. Imported threads
between the gateway's own names alone cannot be told from live ones and keep
their status.
"""

from __future__ import annotations

from alembic import op

revision = "0028o"
down_revision = "0028p"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.execute(
        "UPDATE sessions SET status = 'completed' WHERE status <> 'completed' AND ("
        " created_by = '' OR id IN"
        " (SELECT session_id FROM mails WHERE from_name = '' OR to_name = ''))"
    )


def downgrade() -> None:
    """Nothing to undo: which conversations were open before is not kept."""

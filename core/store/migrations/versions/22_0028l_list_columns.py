"""list columns: each mail's plain-text excerpt and task-list counts, kept for list rows

Revision ID: 0028l
Revises: 0028o
Create Date: 2026-12-04

A list row shows a mail's excerpt (plain text, no Markdown) and its task-list
progress (core/mail/excerpt.py); they are made when a mail is stored, so a page of
50 reads 50 short strings instead of 50 bodies. The mail already stored gets them
from the gateway's background backfill after it starts (core/mail/excerpt_backfill.py),
not here: a start-up must not parse a whole store. Until then `excerpt` is NULL and
lists fall back to the body's start.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028l"
down_revision = "0028o"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("mails") as batch:
        batch.add_column(sa.Column("excerpt", sa.String(length=256), nullable=True))
        batch.add_column(sa.Column("tasks_done", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("tasks_total", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("mails") as batch:
        batch.drop_column("tasks_total")
        batch.drop_column("tasks_done")
        batch.drop_column("excerpt")

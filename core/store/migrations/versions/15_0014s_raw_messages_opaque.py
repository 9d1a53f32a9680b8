"""raw_messages.opaque: whether the stored bytes are over the MIME bounds

Revision ID: 0014s
Revises: 0013q
Create Date: 2026-12-03

A message whose MIME structure is over the bounds (core/rendering/mime_bounds.py:
nesting, parts, header lines and bytes, lines read) is stored and served as it is,
its structure one part. That is decided once, when the bytes are stored, and kept
here so that no read walks them again. NULL for the rows already there: a reader
decides those itself (bounded).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014s"
down_revision = "0013q"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("raw_messages") as batch:
        batch.add_column(sa.Column("opaque", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("raw_messages") as batch:
        batch.drop_column("opaque")

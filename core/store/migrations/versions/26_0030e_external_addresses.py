"""external addresses of humans, their verification codes, reply tokens, replies from outside

Revision ID: 0030e
Revises: 0030a
Create Date: 2026-12-05

`external_addresses`: a human's mailboxes outside, verified by a code mailed there
(`external_address_codes` keeps each code's hash); `reply_tokens`: one row per
`reply+<token>@D` address issued with a request's copy sent outside; `outside_replies`:
what the MX listener found of each mail it stored (core/replies/).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030e"
down_revision = "0030a"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "external_addresses",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("verified_at", _WHEN, nullable=True),
        sa.Column("requests", sa.Boolean(), nullable=False),
        sa.Column("other_mail", sa.Boolean(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "address"),
    )
    with op.batch_alter_table("external_addresses") as batch:
        batch.create_index(batch.f("ix_external_addresses_owner"), ["owner"], unique=False)
        batch.create_index(batch.f("ix_external_addresses_address"), ["address"], unique=False)
    op.create_table(
        "external_address_codes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("address_id", sa.String(length=36), nullable=True),
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("sent_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.Column("used_at", _WHEN, nullable=True),
        sa.ForeignKeyConstraint(["address_id"], ["external_addresses.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("external_address_codes") as batch:
        for column in ("owner", "address_id", "sent_at"):
            batch.create_index(batch.f(f"ix_external_address_codes_{column}"), [column])
    op.create_table(
        "reply_tokens",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("mail_id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("address_id", sa.String(length=36), nullable=True),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("issued_at", _WHEN, nullable=False),
        sa.Column("used_at", _WHEN, nullable=True),
        sa.ForeignKeyConstraint(["mail_id"], ["mails.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["address_id"], ["external_addresses.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("reply_tokens") as batch:
        batch.create_index(batch.f("ix_reply_tokens_mail_id"), ["mail_id"])
        batch.create_index(batch.f("ix_reply_tokens_address_id"), ["address_id"])
    op.create_table(
        "outside_replies",
        sa.Column("mail_id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("sender", sa.String(length=254), nullable=False),
        sa.Column("token_id", sa.String(length=32), nullable=True),
        sa.Column("decided", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("authentication_results", sa.String(length=2000), nullable=False),
        sa.Column("received_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(["mail_id"], ["mails.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("mail_id"),
    )
    with op.batch_alter_table("outside_replies") as batch:
        batch.create_index(batch.f("ix_outside_replies_owner"), ["owner"])


def downgrade() -> None:
    op.drop_table("outside_replies")
    op.drop_table("reply_tokens")
    op.drop_table("external_address_codes")
    op.drop_table("external_addresses")

"""raw message bytes once per content: `raw_messages`, named by `mails.raw_sha256`

Revision ID: 0010r
Revises: 0005s
Create Date: 2026-12-01

Every mail of an SMTP message to several recipients used to carry its own copy
of the message's bytes in `mails.raw` (1 MB to 50 recipients: 50 MB). Now the
bytes live once per sha256 in `raw_messages` and each mail names them
(core/store/raw_messages.py). The upgrade moves the bytes already stored, a
batch of mails at a time (so a big store is never all in memory), then drops
the old column; the bytes served (IMAP `BODY[]`, export) are the same.
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0010r"
down_revision = "0005s"
branch_labels = None
depends_on = None
# Contract: drops `mails.raw`, which the releases before it read: run it only once no
# replica runs such a release.
phase = "contract"

_BATCH = 200
_SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_mails = sa.table(
    "mails",
    sa.column("seq", _SEQ),
    sa.column("raw", sa.LargeBinary()),
    sa.column("raw_sha256", sa.String(64)),
)
_raw = sa.table(
    "raw_messages",
    sa.column("sha256", sa.String(64)),
    sa.column("size", sa.BigInteger()),
    sa.column("data", sa.LargeBinary()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    op.create_table(
        "raw_messages",
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    # A plain ADD COLUMN (no table copy on SQLite, whose mails rows others reference).
    op.add_column("mails", sa.Column("raw_sha256", sa.String(64), nullable=True))
    _move_raw_bytes()
    op.drop_column("mails", "raw")  # SQLite ≥ 3.35 drops a plain column in place


def _move_raw_bytes() -> None:
    connection = op.get_bind()
    moved: set[str] = set()
    after = 0
    while True:
        rows = connection.execute(
            sa.select(_mails.c.seq, _mails.c.raw)
            .where(_mails.c.seq > after, _mails.c.raw.is_not(None))
            .order_by(_mails.c.seq)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        for seq, data in rows:
            content = bytes(data)
            sha256 = hashlib.sha256(content).hexdigest()
            if sha256 not in moved:
                connection.execute(
                    _raw.insert().values(
                        sha256=sha256,
                        size=len(content),
                        data=content,
                        created_at=sa.func.current_timestamp(),
                    )
                )
                moved.add(sha256)
            connection.execute(_mails.update().where(_mails.c.seq == seq).values(raw_sha256=sha256))
        after = rows[-1][0]


def downgrade() -> None:
    op.add_column("mails", sa.Column("raw", sa.LargeBinary(), nullable=True))
    connection = op.get_bind()
    connection.execute(
        _mails.update()
        .where(_mails.c.raw_sha256.is_not(None))
        .values(
            raw=sa.select(_raw.c.data).where(_raw.c.sha256 == _mails.c.raw_sha256).scalar_subquery()
        )
    )
    op.drop_column("mails", "raw_sha256")
    op.drop_table("raw_messages")

"""outbound mail: who may send outside, and the queue of mails to the smarthost

Revision ID: 0029x
Revises: 0029w
Create Date: 2026-12-04

`users.outbound_mail` and `agents.outbound_mail` (off: an admin turns them on) say who
may address `mailto:` recipients; `outbound_jobs` holds one job per outside recipient
of a stored mail, written in the mail's transaction and claimed by one replica
(core/outbound/). The name `reply` becomes reserved (replies from outside will come
to `reply+<token>@D`): the migration refuses to run while a user or agent has it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029x"
down_revision = "0029w"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
RESERVED = "reply"


class ReservedNameInUse(RuntimeError):
    """A user or agent holds a name this version reserves."""


def _refuse_reserved_name() -> None:
    bind = op.get_bind()
    for table, kind in (("users", "user"), ("agents", "agent")):
        found = bind.execute(sa.text(f"SELECT 1 FROM {table} WHERE name = :n"), {"n": RESERVED})
        if found.first() is not None:
            raise ReservedNameInUse(
                f"a {kind} is called '{RESERVED}', a name this version reserves for replies"
                " from outside (reply+<token>@domain). The gateway has no rename command"
                " (neither `agentmail` nor the admin API renames a user or agent), so keep"
                " running the previous version and move them to another name: a user gets"
                " a new account (`agentmail user add NEW_NAME`) and the old one's mail is"
                " exported (`agentmail export`); an agent registers again under a new name"
                " with a new key (`agentmail key issue`), then the old row is deleted"
                f" (DELETE FROM {table} WHERE name = '{RESERVED}'). Then upgrade again."
            )


def upgrade() -> None:
    _refuse_reserved_name()
    for table in ("users", "agents"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("outbound_mail", sa.Boolean(), server_default="0", nullable=False)
            )
    op.create_table(
        "outbound_jobs",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("mail_id", sa.String(length=36), nullable=False),
        sa.Column("sender", sa.String(length=64), nullable=False),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("recipient_domain", sa.String(length=255), nullable=False),
        sa.Column("envelope_sender", sa.String(length=2048), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("first_queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=1000), nullable=False),
        sa.ForeignKeyConstraint(["mail_id"], ["mails.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("outbound_jobs") as batch:
        for column in ("mail_id", "sender", "recipient_domain", "state", "due_at", "settled_at"):
            batch.create_index(batch.f(f"ix_outbound_jobs_{column}"), [column], unique=False)


def downgrade() -> None:
    op.drop_table("outbound_jobs")
    for table in ("agents", "users"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("outbound_mail")

"""imap folders and UIDs: a UID counter per (human, folder) and the mails in each folder

Revision ID: 0005i
Revises: 0002t
Create Date: 2026-11-30

RFC 3501 §2.3.1.1: UIDs are strictly ascending in each mailbox and never reused.
Each folder has its own counter (`imap_folders.next_uid`), advanced under that
row's lock in the transaction that puts a mail in the folder (core/mailboxes/uids.py).

The upgrade also files the mail already stored: every human gets the fixed
folders, and each mail gets UIDs in `seq` order in the folders it belongs to
(INBOX: delivered and not archived; Archive: archived; Sent: sent by them;
Needs decision: permission requests to them; one folder per conversation with
what they sent or received there).
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0005i"
down_revision = "0002t"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

FIXED_FOLDERS = ("inbox", "sent", "drafts", "archive", "trash", "decision")

# (folder key expression, owner column, the rows that belong there); all select
# `owner`, `folder_key` and `mail_seq`.
_MEMBERS = {
    "inbox": """SELECT d.recipient AS owner, 'inbox' AS folder_key, d.mail_seq AS mail_seq
                FROM deliveries d JOIN users u ON u.name = d.recipient
                WHERE d.archived = :false""",
    "archive": """SELECT d.recipient AS owner, 'archive' AS folder_key, d.mail_seq AS mail_seq
                  FROM deliveries d JOIN users u ON u.name = d.recipient
                  WHERE d.archived = :true""",
    "sent": """SELECT m.from_name AS owner, 'sent' AS folder_key, m.seq AS mail_seq
               FROM mails m JOIN users u ON u.name = m.from_name""",
    "decision": """SELECT d.recipient AS owner, 'decision' AS folder_key, d.mail_seq AS mail_seq
                   FROM deliveries d JOIN users u ON u.name = d.recipient
                   JOIN mails m ON m.seq = d.mail_seq
                   WHERE m.mail_type = 'permission_request'""",
    "session": """SELECT owner, 'session:' || session_id AS folder_key, mail_seq FROM (
                    SELECT m.from_name AS owner, m.session_id AS session_id, m.seq AS mail_seq
                    FROM mails m JOIN users u ON u.name = m.from_name
                    UNION
                    SELECT d.recipient, m.session_id, m.seq
                    FROM deliveries d JOIN users u ON u.name = d.recipient
                    JOIN mails m ON m.seq = d.mail_seq) AS s""",
}


def upgrade() -> None:
    op.create_table(
        "imap_folders",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("uid_validity", sa.BigInteger(), nullable=False),
        sa.Column("next_uid", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "key", name="uq_imap_folders_owner_key"),
    )
    op.create_table(
        "imap_uids",
        sa.Column(
            "folder_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("uid", sa.BigInteger(), nullable=False),
        sa.Column("mail_seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(["folder_id"], ["imap_folders.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["mail_seq"], ["mails.seq"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("folder_id", "uid"),
        sa.UniqueConstraint("folder_id", "mail_seq", name="uq_imap_uids_folder_mail"),
    )
    _file_existing_mail()


def _file_existing_mail() -> None:
    bind = op.get_bind()
    flags = {"true": True, "false": False}
    validity = int(time.time())
    for key in FIXED_FOLDERS:
        bind.execute(
            sa.text(
                "INSERT INTO imap_folders (owner, key, uid_validity, next_uid) "
                "SELECT name, :key, CAST(:validity AS BIGINT), 1 FROM users"
            ),
            {"key": key, "validity": validity},
        )
    bind.execute(
        sa.text(
            "INSERT INTO imap_folders (owner, key, uid_validity, next_uid) "
            "SELECT DISTINCT owner, folder_key, CAST(:validity AS BIGINT), 1 "
            f"FROM ({_MEMBERS['session']}) AS m"
        ),
        {"validity": validity, **flags},
    )
    for members in _MEMBERS.values():
        bind.execute(
            sa.text(
                "INSERT INTO imap_uids (folder_id, uid, mail_seq) "
                "SELECT f.id, ROW_NUMBER() OVER (PARTITION BY f.id ORDER BY m.mail_seq), "
                f"m.mail_seq FROM ({members}) AS m "
                "JOIN imap_folders f ON f.owner = m.owner AND f.key = m.folder_key"
            ),
            flags,
        )
    bind.execute(
        sa.text(
            "UPDATE imap_folders SET next_uid = 1 + COALESCE("
            "(SELECT MAX(uid) FROM imap_uids WHERE imap_uids.folder_id = imap_folders.id), 0)"
        )
    )


def downgrade() -> None:
    op.drop_table("imap_uids")
    op.drop_table("imap_folders")

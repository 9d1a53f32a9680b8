"""Revision 0027r counts the mail already in each folder as claimed: after an upgrade no
session is told of it as `\\Recent`; what arrives afterwards is (core/mailboxes/recent.py)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection

from core.mailboxes.recent import Claimed, claim_recent
from core.store.migrate import alembic_config, migrate
from core.store.models import ImapFolder
from tests.support.cli import open_store


def _old_folders(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0026s")
    connection.execute(
        sa.text(
            "INSERT INTO imap_folders (id, owner, key, uid_validity, next_uid, highest_modseq,"
            " vanished_horizon) VALUES (1, 'ana', 'inbox', 7, 12, 30, 0),"
            " (2, 'ana', 'trash', 7, 1, 0, 0)"
        )
    )


async def test_upgrade_counts_the_mail_there_as_claimed(empty_database_url: str) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_old_folders)
        await migrate(store)
        query = sa.select(ImapFolder.key, ImapFolder.recent_uid).order_by(ImapFolder.key)
        rows = await store.read(lambda session: session.execute(query).all())
        assert [tuple(row) for row in rows] == [("inbox", 11), ("trash", 0)]
        assert await claim_recent(store, "ana", 1, 11) == Claimed(11, 11)  # nothing new
        assert await claim_recent(store, "ana", 1, 12) == Claimed(11, 12)  # UID 12 came since
    finally:
        await store.close()

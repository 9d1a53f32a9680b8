"""Revision 0028l adds the list columns empty; the backfill fills the mail stored before
(core/mail/excerpt_backfill.py), and lists show the body's start until it has."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection

from core.mail.excerpt_backfill import fill_excerpts, pending_excerpts
from core.store.migrate import alembic_config, migrate
from core.store.models import Mail
from tests.support.cli import open_store

NOW = datetime(2026, 1, 1)
BODY = "## Status\n\n- [x] **built**\n- [ ] shipped"


def _old_mail(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0028o")
    connection.execute(
        sa.text(
            "INSERT INTO sessions (id, subject, status, budget_used, created_by, created_at,"
            " updated_at) VALUES ('s1', 'old', 'active', 0, 'ana', :now, :now)"
        ),
        {"now": NOW},
    )
    connection.execute(
        sa.text(
            "INSERT INTO mails (id, session_id, from_name, from_path, to_name, to_path, cc,"
            " subject, body, mail_type, auto, hops, message_id, created_at) VALUES"
            " ('m1', 's1', 'ana', '', 'bob', '', '[]', 'old', :body, 'normal', false, 0,"
            " '<m1@x>', :now)"
        ),
        {"body": BODY, "now": NOW},
    )


async def test_upgrade_leaves_the_columns_to_the_backfill(empty_database_url: str) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_old_mail)
        await migrate(store)
        query = sa.select(Mail.excerpt, Mail.tasks_done, Mail.tasks_total)
        rows = await store.read(lambda session: session.execute(query).all())
        assert [tuple(row) for row in rows] == [(None, 0, 0)]
        assert await store.read(pending_excerpts) == 1
        assert await fill_excerpts(store, pause=0) == 1
        rows = await store.read(lambda session: session.execute(query).all())
        assert [tuple(row) for row in rows] == [("Status built shipped", 1, 2)]
    finally:
        await store.close()

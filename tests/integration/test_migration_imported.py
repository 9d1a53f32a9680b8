"""Revision 0028o completes the conversations imported before imports opened them
completed: those with an outside sender or recipient (only an import makes one)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection

from core.store.migrate import alembic_config, migrate
from core.store.models import Conversation
from tests.support.cli import open_store

_SESSION = (
    "INSERT INTO sessions (id, alias, subject, status, budget_used, created_by, created_at,"
    " updated_at) VALUES (:id, :id, 's', :status, 0, :by, '2024-01-01', '2024-01-01')"
)
_MAIL = (
    "INSERT INTO mails (id, session_id, from_name, from_path, to_name, to_path, cc, subject,"
    " body, mail_type, auto, hops, message_id, created_at) VALUES (:id, :conv, :f, :fp, :t,"
    " :tp, '[]', 's', 'b', 'normal', false, 0, :id, '2024-01-01')"
)


def _old_conversations(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0028p")
    for conv, status, by in [
        ("from-outside", "active", ""),
        ("to-outside", "waiting", "ana"),
        ("live", "active", "ana"),
        ("closed", "completed", "ana"),
    ]:
        connection.execute(sa.text(_SESSION), {"id": conv, "status": status, "by": by})
    for mail, conv, f, fp, t, tp in [
        ("m1", "from-outside", "", "bob@example.com", "ana", ""),
        ("m2", "to-outside", "ana", "", "", "bob@example.com"),
        ("m3", "live", "ana", "", "pi", "root"),
    ]:
        values = {"id": mail, "conv": conv, "f": f, "fp": fp, "t": t, "tp": tp}
        connection.execute(sa.text(_MAIL), values)


async def test_upgrade_completes_conversations_with_an_outside_party(
    empty_database_url: str,
) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_old_conversations)
        await migrate(store)
        query = sa.select(Conversation.id, Conversation.status).order_by(Conversation.id)
        rows = await store.read(lambda session: {r[0]: r[1] for r in session.execute(query)})
        assert rows == {
            "closed": "completed",
            "from-outside": "completed",
            "live": "active",
            "to-outside": "completed",
        }
    finally:
        await store.close()

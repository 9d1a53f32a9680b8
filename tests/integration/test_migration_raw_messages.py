"""Revision 0010r moves the raw bytes already stored into `raw_messages`, once per
content, and the bytes served afterwards are the same."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection

from core.store.migrate import alembic_config, migrate
from core.store.models import RawMessage
from core.store.raw_messages import originals_of
from tests.support.cli import open_store
from tests.support.schema import schema_differences

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ONE = b"From: a@x.example\r\nSubject: one\r\n\r\nthe same bytes, twice\r\n"
TWO = b"From: a@x.example\r\nSubject: two\r\n\r\nother bytes\r\n"


def _old_rows(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0005s")
    connection.execute(
        sa.text(
            "INSERT INTO sessions (id, subject, status, budget_used, created_by, created_at,"
            " updated_at) VALUES ('s1', 'one', 'active', 0, 'a', :now, :now)"
        ),
        {"now": NOW},
    )
    for seq, raw in [(1, ONE), (2, ONE), (3, TWO), (4, None)]:
        connection.execute(
            sa.text(
                "INSERT INTO mails (seq, id, session_id, from_name, from_path, to_name, to_path,"
                " cc, subject, body, mail_type, auto, hops, message_id, raw, created_at)"
                " VALUES (:seq, :id, 's1', 'a', '', 'b', '', '[]', 's', 'b', 'normal', false, 0,"
                " :mid, :raw, :now)"
            ),
            {"seq": seq, "id": f"m{seq}", "mid": f"<m{seq}@x>", "raw": raw, "now": NOW},
        )


async def test_upgrade_moves_raw_bytes_once_per_content(empty_database_url: str) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_old_rows)
        await migrate(store)
        rows = await store.read(
            lambda s: s.execute(sa.select(RawMessage.sha256, RawMessage.size)).all()
        )
        assert sorted(size for _, size in rows) == sorted([len(ONE), len(TWO)])
        served = await store.read(lambda s: originals_of(s, [1, 2, 3, 4]))
        assert served == {1: ONE, 2: ONE, 3: TWO}
        differences: list[object] = []

        def compare(connection: Connection) -> None:
            differences.extend(schema_differences(connection))

        await store.run_on_connection(compare)
        assert differences == []  # `mails.raw` is gone; the schema is the models'
    finally:
        await store.close()

"""Revision 0012s indexes the mail already stored, and its triggers index every later
write, whichever path writes it (both databases)."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from core.mail.search import search_mail
from core.principal import Principal
from core.store.engine import Store
from core.store.migrate import alembic_config, migrate
from core.store.models import Mail
from tests.support.cli import open_store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
BOB = Principal(kind="human", name="bob")


def _old_rows(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0010w")
    connection.execute(
        sa.text(
            "INSERT INTO sessions (id, subject, status, budget_used, created_by, created_at,"
            " updated_at) VALUES ('s1', 'one', 'active', 0, 'a', :now, :now)"
        ),
        {"now": NOW},
    )
    for seq, body in [(1, "用户登录失败 in /srv/app/logs"), (2, "nothing to see")]:
        connection.execute(
            sa.text(
                "INSERT INTO mails (seq, id, session_id, from_name, from_path, to_name, to_path,"
                " cc, subject, body, mail_type, auto, hops, message_id, created_at)"
                " VALUES (:seq, :id, 's1', 'alice', '', 'bob', '', '[]', 'old', :body,"
                " 'normal', false, 0, :mid, :now)"
            ),
            {"seq": seq, "id": f"m{seq}", "body": body, "mid": f"<m{seq}@x>", "now": NOW},
        )
        connection.execute(
            sa.text(
                "INSERT INTO deliveries (mail_seq, recipient, kind, is_read, archived, flagged,"
                " answered, deleted, created_at)"
                " VALUES (:seq, 'bob', 'to', false, false, false, false, false, :now)"
            ),
            {"seq": seq, "now": NOW},
        )


async def ids(store: Store, q: str) -> list[str]:
    found = await search_mail(store, "x.example", BOB, q)
    return [m.mail_id for m in found.mails]


async def test_upgrade_indexes_existing_mail_and_triggers_keep_it(empty_database_url: str) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_old_rows)
        await migrate(store)
        assert await ids(store, "/srv/app") == ["m1"]
        assert await ids(store, "登录失败") == ["m1"]
        assert await ids(store, "from:alice") == ["m2", "m1"]

        def rewrite(session: Session) -> None:  # any write path: a plain UPDATE
            session.execute(sa.update(Mail).where(Mail.seq == 2).values(body="now /srv/app too"))

        await store.write(rewrite)
        assert sorted(await ids(store, "/srv/app")) == ["m1", "m2"]
        assert await ids(store, "nothing") == []
    finally:
        await store.close()

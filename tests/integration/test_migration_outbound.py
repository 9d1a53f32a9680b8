"""Revision 0029x reserves the name `reply`: it refuses to run while a user or agent has
it, saying how to move them, and runs once the name is free; everyone starts with
outbound mail off."""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Connection

from core.store.migrate import alembic_config, migrate
from core.store.models import Agent, User
from tests.support.cli import open_store

NOW = datetime(2026, 1, 1)


def _accounts(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "0028l")
    connection.execute(
        sa.text(
            "INSERT INTO users (id, name, password_hash, is_admin, created_at) VALUES"
            " ('u1', 'ana', 'x', true, :now), ('u2', 'reply', 'x', false, :now)"
        ),
        {"now": NOW},
    )
    connection.execute(
        sa.text(
            "INSERT INTO agents (id, name, workspaces, platform, status, default_budget,"
            " created_at) VALUES ('a1', 'builder', '[]', 'test', 'offline', 20, :now)"
        ),
        {"now": NOW},
    )


def _free_the_name(connection: Connection) -> None:
    connection.execute(sa.text("DELETE FROM users WHERE name = 'reply'"))


async def test_the_reserved_name_stops_the_upgrade(empty_database_url: str) -> None:
    store = open_store(empty_database_url)
    try:
        await store.run_on_connection(_accounts)
        with pytest.raises(Exception, match="a user is called 'reply'") as refused:
            await migrate(store)
        assert "no rename command" in str(refused.value)
        await store.run_on_connection(_free_the_name)
        await migrate(store)
        users = await store.read(
            lambda s: s.execute(sa.select(User.name, User.outbound_mail)).all()
        )
        agents = await store.read(lambda s: s.execute(sa.select(Agent.outbound_mail)).all())
        assert [tuple(row) for row in users] == [("ana", False)]
        assert [tuple(row) for row in agents] == [(False,)]
    finally:
        await store.close()

"""The statements one send costs, counted: a change that adds one to the hottest write
path fails here, and says which (docs/performance.md, "Measuring a change").

Every statement the engines send is counted (on SQLite `BEGIN IMMEDIATE` too; a
lone write has no SAVEPOINT, core/store/sqlite/group_commit.py), for a mail to an
existing conversation, the steady state of a busy gateway: a human mailing an
agent (the REST benchmark's send) and an agent answering a human (which files
the mail into two of the human's IMAP folders).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session

from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.store.engine import Store, database_url
from core.store.migrate import migrate
from core.store.models import Agent

D = "agentmail.localhost"
HUMAN = Principal(kind="human", name="ana")
AGENT = Principal(kind="agent", name="builder")
# Statements of one send to an existing conversation, by database.
HUMAN_TO_AGENT = {"sqlite": 10, "postgresql": 3}
AGENT_TO_HUMAN = {"sqlite": 11, "postgresql": 4}


@pytest.fixture
async def store(database_url: str, tmp_path: Path) -> AsyncIterator[Store]:
    set_bcrypt_rounds(4)
    store = Store(database_url_of(database_url, tmp_path))
    await migrate(store)
    await create_user(store, "ana", "password123")

    def agent(session: Session) -> None:
        session.add(Agent(name="builder", workspaces=[{"name": "ws", "path": "/srv/ws"}]))

    await store.write(agent)
    try:
        yield store
    finally:
        await store.close()


def database_url_of(url: str, tmp_path: Path) -> str:
    return database_url(url, tmp_path / "agentmail.db")


def engines(store: Store) -> list[Engine]:
    if store.dialect == "sqlite":
        return store.engines
    return [store.engine.sync_engine]


async def statements_of_second_send(store: Store, sender: Principal, to: str) -> list[str]:
    request = SendRequest(to=to, subject="statements", body="counted")
    await send_mail(store, D, sender, request)  # opens the conversation
    seen: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        seen.append(" ".join(statement.split())[:80])

    for engine in engines(store):
        event.listen(engine, "before_cursor_execute", count)
    try:
        await send_mail(store, D, sender, request)
    finally:
        for engine in engines(store):
            event.remove(engine, "before_cursor_execute", count)
    return seen


async def test_a_human_mailing_an_agent(store: Store) -> None:
    seen = await statements_of_second_send(store, HUMAN, "builder@ws")
    assert len(seen) <= HUMAN_TO_AGENT[store.dialect], "\n".join(seen)


async def test_an_agent_mailing_a_human(store: Store) -> None:
    seen = await statements_of_second_send(store, AGENT, "ana@")
    assert len(seen) <= AGENT_TO_HUMAN[store.dialect], "\n".join(seen)

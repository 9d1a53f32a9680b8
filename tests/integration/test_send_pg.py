"""PostgreSQL's send statement (core/store/postgres/mail_statement.py): when it runs,
what it leaves for the events statement, and the lock order it keeps. That it stores
what SQLite stores is the contract suite's (tests/contract/).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.orm import Session

from core.errors import InvalidRequest
from core.mail.send import SendRequest, mail_writer, send_mail
from core.principal import Principal
from core.store.committed_events import EVENTS_LOCK_KEY
from core.store.engine import Store
from core.store.models import (
    Mail,
    table_of,
)
from tests.contract.test_mail_operations import sends
from tests.support.two_stores import Stores, two_stores

D = "agentmail.localhost"
ANA = Principal(kind="human", name="ana")
BO = Principal(kind="human", name="bo")
BUILDER = Principal(kind="agent", name="builder")


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[Stores]:
    async with two_stores(tmp_path) as both:
        yield both


async def test_a_send_to_a_known_conversation_is_one_statement(
    stores: tuple[Store, Store],
) -> None:
    """Every send of the contract suite's `sends` but the first ones of a conversation
    and one human answer (its status is read back) takes the one statement; the rows
    both databases keep are compared there (tests/contract/)."""
    postgres = stores[1]
    statements: list[str] = []
    event.listen(
        postgres.engine.sync_engine,
        "before_cursor_execute",
        lambda _c, _cursor, sql, *_: statements.append(" ".join(sql.split()[:3])),
    )
    await sends(postgres)
    assert statements.count("WITH mail AS") == 14


async def test_rows_left_for_commit_are_there_for_the_next_statement(
    stores: tuple[Store, Store],
) -> None:
    """A mail's rows left to the events statement (core/store/postgres/deferred_statements.py)
    are written before any other statement of the transaction, and dropped with a rollback."""
    postgres = stores[1]
    writes = [
        mail_writer(D, ANA, SendRequest(to="builder@ws", subject=f"in one {n}")) for n in range(2)
    ]

    def two_then_count(session: Session) -> int:
        for write in writes:
            write(session)
        return len(session.execute(select(table_of(Mail).c.seq)).all())

    assert await postgres.write(two_then_count) == 2

    def refused(session: Session) -> None:
        writes[0](session)
        raise InvalidRequest("refused after the send")

    with pytest.raises(InvalidRequest):
        await postgres.write(refused)
    for _ in range(5):  # every pooled connection a leftover could sit on
        await send_mail(postgres, D, ANA, SendRequest(to="builder@ws", subject="after"))
    subjects = await postgres.read(
        lambda session: list(session.scalars(select(table_of(Mail).c.subject)))
    )
    assert sorted(subjects) == ["after"] * 5 + ["in one 0", "in one 1"]


async def test_the_events_lock_waits_for_the_rows(stores: tuple[Store, Store]) -> None:
    """The events statement takes its lock only once the send's rows in front of it
    are written: a send waiting for a folder's row must not hold the events lock
    meanwhile (every writer would wait, and one holding that row would deadlock)."""
    postgres = stores[1]
    await send_mail(postgres, D, ANA, SendRequest(to="builder@ws", subject="folders made"))
    async with postgres.engine.connect() as blocker, postgres.engine.connect() as watcher:
        await blocker.execute(
            text("SELECT 1 FROM imap_folders WHERE owner = 'ana' AND key = 'sent' FOR UPDATE")
        )
        sending = asyncio.create_task(
            send_mail(postgres, D, ANA, SendRequest(to="builder@ws", subject="waits"))
        )
        # pg_locks and pg_stat_activity see the whole cluster: other workers' tests run
        # in databases of their own, so every question is asked of this database only.
        waiting = text(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        for _ in range(200):
            await watcher.rollback()  # pg_stat_activity is read once a transaction
            if (await watcher.execute(waiting)).scalar():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the send never waited for the folder")
        held = await watcher.execute(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND objid = :key"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            ),
            {"key": EVENTS_LOCK_KEY},
        )
        assert held.scalar() == 0
        await blocker.rollback()
    await sending

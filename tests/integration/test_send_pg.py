"""PostgreSQL's send statement (core/store/postgres/mail_statement.py) stores what SQLite stores.

The same sends go to a SQLite store and a PostgreSQL one: a first mail of a
conversation and of a human's folder (PostgreSQL's statement-by-statement path,
which creates them), mails to existing conversations (its one statement), a
question and the human answer that reads the status back, a reply flagging
\\Answered, cc, permission requests. Then every row the write path touches is
compared, with the ids each database draws (uuids, sequences) and times left out.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Table, event, select, text
from sqlalchemy.orm import Session

from core.errors import InvalidRequest
from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail.send import Permission, SendRequest, mail_writer, send_mail
from core.principal import Principal
from core.store.committed_events import EVENTS_LOCK_KEY
from core.store.engine import Store, database_url
from core.store.migrate import migrate
from core.store.models import (
    Agent,
    Conversation,
    Delivery,
    Event,
    ImapFolder,
    ImapUid,
    Mail,
    Participant,
    table_of,
)
from tests.support import databases

D = "agentmail.localhost"
ANA = Principal(kind="human", name="ana")
BO = Principal(kind="human", name="bo")
BUILDER = Principal(kind="agent", name="builder")
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+(?:[+-]\d\d:\d\d|Z)?")
_BY_RANDOM_ID = {"participants", "folders", "uids"}  # session ids, folder ids
_LEFT_OUT = {"id", "seq", "created_at", "updated_at", "expires_at", "uid_validity"}


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[tuple[Store, Store]]:
    set_bcrypt_rounds(4)
    url = await databases.create_postgres_database()
    both = (Store(database_url("", tmp_path / "agentmail.db")), Store(database_url(url, Path())))
    try:
        for store in both:
            await migrate(store)
            for name in ("ana", "bo"):
                await create_user(store, name, "password123")

            def agent(session: Session) -> None:
                session.add(Agent(name="builder", workspaces=[{"name": "ws", "path": "/srv/ws"}]))

            await store.write(agent)
        yield both
    finally:
        for store in both:
            await store.close()
        await databases.drop_postgres_database(url)


async def run_sends(store: Store) -> None:
    async def send(who: Principal, to: str, subject: str, **more: Any) -> str:
        fields = {k: more.pop(k) for k in ("cc", "reply_to") if k in more}
        if more.pop("question", False):
            fields["mail_type"] = "question"
        request = SendRequest(to=to, subject=subject, body=f"body of {subject}", **fields)
        return (await send_mail(store, D, who, request, **more)).mail_id

    await send(ANA, "builder@ws", "first")  # a new conversation and new folders
    await send(ANA, "builder@ws", "second")
    answer = await send(BUILDER, "ana@", "an answer")  # ana's INBOX is new
    await send(BUILDER, "ana@", "another answer")
    await send(ANA, "builder@ws", "thanks", reply_to=answer)  # \\Answered on ana's delivery
    await send(BUILDER, "ana@", "which branch?", question=True)  # waiting
    await send(ANA, "builder@ws", "main")  # answers it: the status is read back
    await send(ANA, "builder@ws", "with bo", cc=["bo@"])  # bo's folders are new
    await send(ANA, "builder@ws", "with bo again", cc=["bo@", "builder@ws"])
    permission = Permission(["yes", "no"], action="rm -rf build")
    for n in range(2):  # Needs decision: new, then there
        await send(
            BUILDER, "ana@", f"may I {n}", mail_type="permission_request", permission=permission
        )
    await send(BO, "ana@", "hello")
    await send(ANA, "bo@", "hello back")
    await send(BUILDER, "bo@.new", "a new one")


async def rows(store: Store) -> list[tuple[str, list[Any]]]:
    """Every row a send writes, in a stable order, surrogate ids by what they name."""

    def read(session: Session) -> list[tuple[str, list[Any]]]:
        def table(model: type[Any], *order: str) -> list[dict[str, Any]]:
            t: Table = table_of(model)
            query = select(t).order_by(*(t.c[name] for name in order))
            return [dict(row._mapping) for row in session.execute(query)]

        mails = table(Mail, "seq")
        seqs = {m["seq"]: m["id"] for m in mails}
        folders = {f["id"]: (f["owner"], f["key"]) for f in table(ImapFolder, "owner", "key")}
        dumped = {
            "mails": mails,
            "sessions": table(Conversation, "created_at", "id"),
            "participants": table(Participant, "session_id", "name"),
            "deliveries": [
                {**d, "mail": seqs[d["mail_seq"]]} for d in table(Delivery, "mail_seq", "id")
            ],
            "folders": table(ImapFolder, "owner", "key"),
            "uids": [
                {**u, "folder": folders[u["folder_id"]], "mail": seqs[u["mail_seq"]]}
                for u in table(ImapUid, "folder_id", "uid")
            ],
            "events": table(Event, "id"),
        }
        return [
            (
                name,
                [
                    {k: v for k, v in r.items() if k not in _LEFT_OUT | {"mail_seq", "folder_id"}}
                    for r in found
                ],
            )
            for name, found in dumped.items()
        ]

    return await store.read(read)


def named(dumped: list[tuple[str, list[Any]]]) -> list[tuple[str, list[str]]]:
    """The rows as text, every uuid by the order in which it first appears (the mails
    come first, in order, and name every conversation); rows ordered by a random id
    sorted by their text."""
    seen: dict[str, str] = {}

    def text(row: Any) -> str:
        plain = _TIME.sub("<time>", repr(row))  # in event payloads
        return _ID.sub(lambda m: seen.setdefault(m.group(), f"<id {len(seen)}>"), plain)

    return [
        (name, sorted(map(text, found)) if name in _BY_RANDOM_ID else list(map(text, found)))
        for name, found in dumped
    ]


async def test_postgres_stores_the_rows_sqlite_stores(stores: tuple[Store, Store]) -> None:
    sqlite, postgres = stores
    statements: list[str] = []
    event.listen(
        postgres.engine.sync_engine,
        "before_cursor_execute",
        lambda _c, _cursor, sql, *_: statements.append(" ".join(sql.split()[:3])),
    )
    for store in stores:
        await run_sends(store)
    # Every send but one took the one statement (a human's mail to a conversation
    # waiting for an answer reads its status back after storing it).
    assert statements.count("WITH mail AS") == 13
    expected, found = named(await rows(sqlite)), named(await rows(postgres))
    assert "with bo again" in str(found) and "'decision')" in str(found)
    assert found == expected


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
        waiting = text("SELECT count(*) FROM pg_locks WHERE NOT granted")
        for _ in range(200):
            if (await watcher.execute(waiting)).scalar():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the send never waited for the folder")
        held = await watcher.execute(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND objid = :key"
            ),
            {"key": EVENTS_LOCK_KEY},
        )
        assert held.scalar() == 0
        await blocker.rollback()
    await sending

"""IMAP UIDs in the store: commit order is UID order, and the migration files old mail."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from sqlalchemy import column, insert, select, table
from sqlalchemy.engine import Connection

from core.mailboxes.contents import folder_state
from core.mailboxes.folders import ensure_folders, list_folders
from core.store.engine import Store
from core.store.engine import database_url as sqlalchemy_url
from core.store.migrate import alembic_config, migrate
from core.store.models import Conversation, Draft, ImapFolder, ImapUid, Mail, User, table_of, utcnow
from tests.support.gateway import Api
from tests.support.http import ok

SENDS = 16


async def test_a_reader_never_sees_a_gap_in_the_uids(api: Api) -> None:
    """RFC 3501 §2.3.1.1: UIDs ascend in commit order, so every snapshot of a
    folder holds UIDs 1..n with no hole a later commit could fill."""
    await api.human("jianf")
    builder = await api.agent("builder")
    store = api.gateway.store
    assert store is not None
    await ensure_folders(store, "jianf")  # as an IMAP login does
    inbox = next(f for f in await list_folders(store, "jianf") if f.key == "inbox")
    seen: list[list[int]] = []
    sending = True

    async def read() -> None:
        while sending:
            state = await folder_state(store, "jianf", inbox)
            seen.append([m.uid for m in state.messages])
            await asyncio.sleep(0)

    async def send(n: int) -> None:
        body = {"to": "jianf@", "subject": f"concurrent {n}", "body": "x"}
        ok(await builder.post("/api/v1/mail/send", json=body))

    reader = asyncio.create_task(read())
    await asyncio.gather(*(send(n) for n in range(SENDS)))
    sending = False
    await reader
    final = await folder_state(store, "jianf", inbox)
    assert [m.uid for m in final.messages] == list(range(1, SENDS + 1))
    assert final.next_uid == SENDS + 1
    assert [m.mail_seq for m in final.messages] == sorted(m.mail_seq for m in final.messages)
    for uids in seen:
        assert uids == list(range(1, len(uids) + 1)), uids


# The columns deliveries and drafts had at 0002t (the models have more since).
OLD_DELIVERIES = table(
    "deliveries",
    *map(column, ("mail_seq", "recipient", "kind", "is_read", "archived", "created_at")),
)
OLD_DRAFTS = table(
    "drafts", *map(column, ("id", "owner", "cc", "subject", "body", "created_at", "updated_at"))
)


def _old_store(connection: Connection) -> None:
    """A store as 0002t left it: two humans, one conversation, four mails, two drafts."""
    config = alembic_config(connection)
    command.upgrade(config, "0002t")
    now = utcnow()
    connection.execute(
        insert(table_of(User)),
        [
            {
                "id": f"u-{name}",
                "name": name,
                "password_hash": "x",
                "is_admin": False,
                "created_at": now,
            }
            for name in ("jianf", "bob")
        ],
    )
    connection.execute(
        insert(table_of(Conversation)),
        {
            "id": "s1",
            "subject": "old",
            "status": "active",
            "budget_used": 0,
            "created_by": "bob",
            "created_at": now,
            "updated_at": now,
        },
    )
    mails = [  # seq, from, to, type, archived by the recipient
        (1, "bob", "jianf", "normal", False),
        (2, "jianf", "bob", "normal", False),
        (3, "bob", "jianf", "normal", True),
        (4, "bob", "jianf", "permission_request", False),
    ]
    for seq, sender, to, kind, archived in mails:
        connection.execute(
            insert(table_of(Mail)),
            {
                "seq": seq,
                "id": f"m{seq}",
                "session_id": "s1",
                "from_name": sender,
                "from_path": "",
                "to_name": to,
                "to_path": "",
                "cc": [],
                "subject": "old",
                "body": "",
                "mail_type": kind,
                "auto": False,
                "hops": 0,
                "message_id": f"<m{seq}@x>",
                "created_at": now,
            },
        )
        connection.execute(
            insert(OLD_DELIVERIES),
            {
                "mail_seq": seq,
                "recipient": to,
                "kind": "to",
                "is_read": False,
                "archived": archived,
                "created_at": now,
            },
        )
    for n in (1, 2):
        columns = {"id": f"d{n}", "owner": "jianf", "cc": "[]", "subject": f"draft {n}"}
        times = {"created_at": now, "updated_at": now}
        connection.execute(
            insert(OLD_DRAFTS),
            {**columns, "body": "", **times},
        )


async def test_the_migration_files_mail_already_stored(
    empty_database_url: str, tmp_path: Path
) -> None:
    store = Store(sqlalchemy_url(empty_database_url, tmp_path / "old.db"))
    try:
        await store.run_on_connection(_old_store)
        await migrate(store)
        rows = await store.read(
            lambda s: s.execute(
                select(ImapFolder.owner, ImapFolder.key, ImapUid.uid, ImapUid.mail_seq)
                .join(ImapUid, ImapUid.folder_id == ImapFolder.id)
                .order_by(ImapFolder.owner, ImapFolder.key, ImapUid.uid)
            ).all()
        )
        filed: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for owner, key, uid, seq in rows:
            filed.setdefault((owner, key), []).append((uid, seq))
        assert filed == {
            ("jianf", "inbox"): [(1, 1), (2, 4)],
            ("jianf", "archive"): [(1, 3)],
            ("jianf", "sent"): [(1, 2)],
            ("jianf", "decision"): [(1, 4)],
            ("jianf", "session:s1"): [(1, 1), (2, 2), (3, 3), (4, 4)],
            ("bob", "inbox"): [(1, 2)],
            ("bob", "sent"): [(1, 1), (2, 3), (3, 4)],
            ("bob", "session:s1"): [(1, 1), (2, 2), (3, 3), (4, 4)],
        }
        next_uids = await store.read(
            lambda s: dict(
                ((r.owner, r.key), r.next_uid)
                for r in s.execute(select(ImapFolder.owner, ImapFolder.key, ImapFolder.next_uid))
            )
        )
        assert next_uids[("jianf", "inbox")] == 3
        assert next_uids[("jianf", "trash")] == 1  # every fixed folder exists
        assert next_uids[("bob", "sent")] == 4
        drafts = await store.read(
            lambda s: s.execute(select(Draft.id, Draft.imap_uid).order_by(Draft.id)).all()
        )
        assert [tuple(row) for row in drafts] == [("d1", 1), ("d2", 2)]  # numbered by 0005f
        assert next_uids[("jianf", "drafts")] == 3
    finally:
        await store.close()

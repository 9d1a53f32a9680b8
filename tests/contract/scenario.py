"""What a contract scenario is, the people it acts as, and how it runs on both stores.

A scenario is a list of operations on one store, called as the transports call
them (api/, smtp_in/, imap_view/, gateway/); it runs on the SQLite store, then on
the PostgreSQL one, and every table of the two is compared (tests/contract/rows.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Conversation, Mail
from tests.contract.rows import differences, dump
from tests.support.two_stores import Stores

D = "agentmail.localhost"
# The accounts of tests/support/two_stores.py.
ANA = Principal(kind="human", name="ana")
BO = Principal(kind="human", name="bo")
BUILDER = Principal(kind="agent", name="builder")
Scenario = Callable[[Store], Awaitable[None]]


async def send(store: Store, who: Principal, to: str, subject: str, **more: Any) -> str:
    """`send_mail` of a mail with this subject (its body made from it); its id.
    `body`, `cc`, `reply_to`, `session_alias`, `attachment_ids`, `propose_alias` and
    `question=True` go into the request, everything else to `send_mail`."""
    names = ("cc", "reply_to", "session_alias", "attachment_ids", "propose_alias")
    fields = {k: more.pop(k) for k in names if k in more}
    if more.pop("question", False):
        fields["mail_type"] = "question"
    body = more.pop("body", f"body of {subject}")
    request = SendRequest(to=to, subject=subject, body=body, **fields)
    return (await send_mail(store, D, who, request, **more)).mail_id


async def mail_ids(store: Store) -> list[str]:
    """Every mail's id, in the order they were stored."""

    def read(session: Session) -> list[str]:
        return list(session.scalars(select(Mail.id).order_by(Mail.seq)))

    return await store.read(read)


async def mail_seqs(store: Store) -> list[int]:
    """Every mail's seq, in the order they were stored (what IMAP's writes name)."""

    def read(session: Session) -> list[int]:
        return [int(seq) for seq in session.scalars(select(Mail.seq).order_by(Mail.seq))]

    return await store.read(read)


async def conversation_of(store: Store, mail_id: str) -> str:
    query = select(Mail.session_id).where(Mail.id == mail_id)
    found: str | None = await store.read(lambda session: session.scalar(query))
    assert found is not None
    return found


async def conversation_by_alias(store: Store, alias: str) -> str:
    query = select(Conversation.id).where(Conversation.alias == alias)
    found: str | None = await store.read(lambda session: session.scalar(query))
    assert found is not None
    return found


async def assert_same_rows(stores: Stores, scenario: Scenario) -> None:
    """Run `scenario` on each store; it must have changed rows, and the same ones."""
    sqlite, postgres = stores
    before = await dump(sqlite)
    for store in stores:
        await scenario(store)
    expected, found = await dump(sqlite), await dump(postgres)
    assert expected != before, f"{scenario.__name__} changed no row"
    differ = differences(expected, found)
    assert not differ, f"{scenario.__name__}: the rows differ in {shown(differ)}"


def shown(differ: dict[str, tuple[list[str], list[str]]]) -> str:
    """The tables that differ and their rows, SQLite's then PostgreSQL's."""
    lines = []
    for table, (only_sqlite, only_postgres) in differ.items():
        lines.append(f"{table}:")
        lines += [f"  SQLite only:     {row}" for row in only_sqlite]
        lines += [f"  PostgreSQL only: {row}" for row in only_postgres]
        if not only_sqlite and not only_postgres:
            lines.append("  the same rows in another order")
    return "\n".join(lines)

"""Big mailboxes fast: mails and deliveries written through the store's bulk path.

One `executemany` per batch in one write transaction, not one `send_mail` per
mail: 10,000 mails take about a second instead of minutes of REST calls. The
rows are what the one write path would leave for a plain delivered mail (the
search triggers of migration 0012s index them as they land), minus what a bulk
load has no use for: no events, no IMAP UIDs. Shared by the benchmarks
(`bench/inbox.py`) and the browser suite's 10,000-mail inbox (tests/e2e).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table as SqlTable
from sqlalchemy import func, insert, select, text
from sqlalchemy.orm import Session

from core.mail.excerpt import excerpt_values
from core.store.engine import Store
from core.store.models import Conversation, Delivery, Mail, table_of, utcnow

BODY = "A mail body of a few lines, as agents write them. " * 4
LISTED = excerpt_values(BODY)  # what the write path keeps beside a body (core/mail/excerpt.py)


async def bulk_insert(store: Store, table: SqlTable, rows: Iterable[dict[str, Any]]) -> None:
    """One executemany per call, in one write transaction (callers pass big batches)."""
    batch = list(rows)

    def run(session: Session) -> None:
        session.connection().execute(insert(table), batch)

    await store.write(run)


@dataclass
class InboxFill:
    """What to write: `mails` mails from `senders` agents in `conversations` conversations;
    `recipient(seq, rng)` says whose each is. `prefix` keeps the conversation ids and
    aliases apart from those of another fill in the same store."""

    mails: int
    recipient: Callable[[int, random.Random], str]
    conversations: int = 10_000
    senders: int = 50
    unread_share: float = 0.1
    archived_share: float = 0.05
    batch: int = 20_000
    domain: str = "agentmail.localhost"
    prefix: str = "conv"
    seed: int = 7


async def _next_seq(store: Store) -> int:
    latest = await store.read(lambda s: s.scalar(select(func.max(Mail.seq))))
    return (latest or 0) + 1


async def _advance_sequence(store: Store) -> None:
    """PostgreSQL: explicit `seq`s do not move the column's sequence; the next
    `send_mail` must not collide with them. SQLite takes max(rowid) + 1 by itself."""
    if store.dialect != "postgresql":
        return
    statement = text(
        "SELECT setval(pg_get_serial_sequence('mails', 'seq'), (SELECT max(seq) FROM mails))"
    )
    await store.write(lambda s: s.execute(statement))


async def fill_inbox(
    store: Store, fill: InboxFill, progress: Callable[[int], None] | None = None
) -> None:
    """Conversations, then mails and their deliveries batch by batch, with explicit seqs
    (the deliveries name them) after the store's last; `progress(done)` after each batch."""
    now = utcnow()
    conversations = [
        {"id": f"{fill.prefix}-{n}", "alias": f"{fill.prefix}-{n}", "subject": f"conversation {n}"}
        for n in range(fill.conversations)
    ]
    for row in conversations:
        row.update(status="active", budget_used=0, created_by="agent00")
        row.update(created_at=now, updated_at=now)
    await bulk_insert(store, table_of(Conversation), conversations)
    rng = random.Random(fill.seed)
    start = await _next_seq(store)
    last = start + fill.mails - 1
    for first in range(start, last + 1, fill.batch):
        mails, deliveries = [], []
        for seq in range(first, min(first + fill.batch, last + 1)):
            to = fill.recipient(seq, rng)
            mail_id = str(uuid.uuid4())
            mails.append(
                {
                    "seq": seq,
                    "id": mail_id,
                    "session_id": f"{fill.prefix}-{seq % fill.conversations}",
                    "from_name": f"agent{seq % fill.senders:02d}",
                    "from_path": "ws",
                    "to_name": to,
                    "cc": [],
                    "subject": f"mail {seq - start + 1}",
                    "body": BODY,
                    **LISTED,
                    "message_id": f"<{mail_id}@{fill.domain}>",
                    "created_at": now,
                }
            )
            archived = rng.random() < fill.archived_share
            unread = rng.random() < fill.unread_share
            deliveries.append(
                {
                    "mail_seq": seq,
                    "recipient": to,
                    "is_read": not unread,
                    "archived": archived,
                    "created_at": now,
                }
            )
        await bulk_insert(store, table_of(Mail), mails)
        await bulk_insert(store, table_of(Delivery), deliveries)
        if progress is not None:
            progress(first + len(mails) - start)
    await _advance_sequence(store)

"""Excerpts and task counts for the mail stored before they existed: a background
backfill in batches, resumable and idempotent.

Migration 20_0028l adds the columns empty (`excerpt` NULL): a start-up must not parse
a whole store. Once the gateway serves, `fill_excerpts` walks the mails still
without an excerpt in `seq` order, a batch at a time: it reads their bodies, makes
the excerpts in a worker thread (core/mail/excerpt.py), writes them in one
transaction and pauses, so clients are served in between. A row is written only
while its excerpt is still NULL, so a gateway stopped midway starts again at the
first row missing one, and two replicas running it at once write the same values.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any, Final

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from core.mail.excerpt import MAX_PARSED_CHARS, excerpt_of
from core.store.engine import Store
from core.store.models import Mail, table_of

__all__ = ["BATCH_ROWS", "fill_excerpts", "pending_excerpts"]

log = logging.getLogger(__name__)
BATCH_ROWS: Final = 200
_MAILS = table_of(Mail)
_WRITE = (
    update(_MAILS)
    .where(_MAILS.c.seq == bindparam("b_seq"), _MAILS.c.excerpt.is_(None))
    .values(
        excerpt=bindparam("b_excerpt"),
        tasks_done=bindparam("b_done"),
        tasks_total=bindparam("b_total"),
    )
)


def pending_excerpts(session: Session) -> int:
    return int(session.scalar(select(func.count()).where(Mail.excerpt.is_(None))) or 0)


def _next_bodies(session: Session, after: int, limit: int) -> list[tuple[int, str]]:
    """The next mails without an excerpt, with as much of their body as is parsed."""
    rows = session.execute(
        select(Mail.seq, func.substr(Mail.body, 1, MAX_PARSED_CHARS))
        .where(Mail.seq > after, Mail.excerpt.is_(None))
        .order_by(Mail.seq)
        .limit(limit)
    )
    return [(int(seq), str(body or "")) for seq, body in rows]


def _made(rows: list[tuple[int, str]]) -> list[dict[str, Any]]:
    made = []
    for seq, body in rows:
        excerpt = excerpt_of(body)
        made.append(
            {
                "b_seq": seq,
                "b_excerpt": excerpt.text,
                "b_done": excerpt.tasks_done,
                "b_total": excerpt.tasks_total,
            }
        )
    return made


def _write(session: Session, made: list[dict[str, Any]]) -> None:
    session.connection().execute(_WRITE, made)


async def fill_excerpts(store: Store, *, pause: float = 0.05, batch_rows: int = BATCH_ROWS) -> int:
    """Every stored mail without an excerpt given one (see module doc); how many."""
    pending = await store.read(pending_excerpts)
    if not pending:
        return 0
    log.info("excerpts: %d mails to fill", pending)
    after = filled = 0
    while rows := await store.read(partial(_next_bodies, after=after, limit=batch_rows)):
        after = rows[-1][0]
        made = await asyncio.to_thread(_made, rows)
        await store.write(partial(_write, made=made))
        before, filled = filled, filled + len(made)
        if filled // 10_000 != before // 10_000:
            log.info("excerpts: %d of %d mails filled", filled, pending)
        await asyncio.sleep(pause)
    log.info("excerpts: filled %d mails", filled)
    return filled

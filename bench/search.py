"""Search in a store of 100,000 mails, beside a one-row lookup.

    .venv/bin/python bench/search.py [--mails 100000 --recipients 100]
                                     [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Fills a fresh store through the store's bulk path (`bulk_insert`, as
   bench/inbox.py does; the search triggers of migration 0012s index every row
   as it is written) with `--mails` mails across `--recipients` recipients plus
   one "heavy" recipient who gets `--heavy-share` of them, sent by 50 agents in
   1,000 conversations. Bodies are drawn from a vocabulary with a few rare
   words, a path (`/srv/app/...`) and Chinese text, so terms match many or few.
2. Times `core.mail.search.search_mail` (the count capped at 1,000, then the
   ranked page of 20 — or newest first beyond the cap —, views built) for the
   heavy recipient: a rare word, a common word, a path fragment, Chinese, a
   filter alone, a word with a filter, and the baseline: one mail by its `id`.

Goal (docs/performance.md): p95 under 50 ms on SQLite. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
import uuid
from typing import Any

from _cli import reproduce
from _db import (
    baseline_case,
    bulk_insert,
    console,
    elapsed,
    facts,
    fresh_store,
    measure,
    settle,
    timing_table,
)
from sqlalchemy import select

from core.mail.search import search_mail
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Conversation, Delivery, Mail, table_of, utcnow

GOAL_MS = 50.0
DOMAIN = "agentmail.localhost"
CONVERSATIONS = 1_000
SENDERS = 50
HEAVY = "heavy"
COMMON = [
    "deploy",
    "build",
    "test",
    "review",
    "merge",
    "release",
    "config",
    "server",
    "client",
    "database",
]
RARE = ["zanzibar", "quixotic", "fjord"]
QUERIES = {
    "rare word": "zanzibar",
    "common word": "release",
    "path fragment": "/srv/app",
    "chinese": "登录",
    "two words": "deploy server",
    "filter only": "from:agent07 is:unread",
    "word + filter": "database from:agent07",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=100_000)
    parser.add_argument("--recipients", type=int, default=100)
    parser.add_argument("--heavy-share", type=float, default=0.2, help="mails to one recipient")
    parser.add_argument("--batch", type=int, default=10_000, help="rows per executemany")
    parser.add_argument("--runs", type=int, default=50, help="timed runs of each case")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--database-url", default="", help="PostgreSQL server; default SQLite")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args(argv)


def body_of(rng: random.Random) -> str:
    words = rng.choices(COMMON, k=30)
    if rng.random() < 0.01:
        words.append(rng.choice(RARE))
    if rng.random() < 0.05:
        words.append(f"/srv/app/releases/{rng.randrange(100)}")
    if rng.random() < 0.05:
        words.append("用户登录失败")
    return " ".join(words)


async def fill(store: Store, args: argparse.Namespace) -> None:
    now = utcnow()
    conversations = [
        {"id": f"conv-{n}", "alias": f"conv-{n}", "subject": f"conversation {n}"}
        for n in range(CONVERSATIONS)
    ]
    for row in conversations:
        row.update(status="active", budget_used=0, created_by="agent00")
        row.update(created_at=now, updated_at=now)
    await bulk_insert(store, table_of(Conversation), conversations)
    rng = random.Random(7)
    started = time.perf_counter()
    for first in range(1, args.mails + 1, args.batch):
        mails, deliveries = [], []
        for seq in range(first, min(first + args.batch, args.mails + 1)):
            to = HEAVY if rng.random() < args.heavy_share else f"user{seq % args.recipients:03d}"
            mail_id = str(uuid.uuid4())
            mails.append(
                {
                    "seq": seq,
                    "id": mail_id,
                    "session_id": f"conv-{seq % CONVERSATIONS}",
                    "from_name": f"agent{seq % SENDERS:02d}",
                    "from_path": "ws",
                    "to_name": to,
                    "cc": [],
                    "subject": f"{rng.choice(COMMON)} {seq}",
                    "body": body_of(rng),
                    "message_id": f"<{mail_id}@{DOMAIN}>",
                    "created_at": now,
                }
            )
            deliveries.append(
                {"mail_seq": seq, "recipient": to, "is_read": rng.random() < 0.9}
                | {"archived": False, "created_at": now}
            )
        await bulk_insert(store, table_of(Mail), mails)
        await bulk_insert(store, table_of(Delivery), deliveries)
        done = first + len(mails) - 1
        rate = done / (time.perf_counter() - started)
        console.print(f"  {done:>9,} mails + deliveries, {elapsed(started)}, {rate:,.0f}/s")


def search_case(store: Store, q: str) -> Any:
    principal = Principal(kind="human", name=HEAVY)

    async def case() -> str:
        found = await search_mail(store, DOMAIN, principal, q, limit=20)
        more = "" if found.total_exact else "+"
        return f"{len(found.mails)} of {found.total:,}{more}"

    return case


async def main(args: argparse.Namespace) -> None:
    async with fresh_store(args.database_url or None, args.keep) as (store, described):
        started = time.perf_counter()
        console.print(f"filling {args.mails:,} mails, {args.heavy_share:.0%} to one recipient")
        await fill(store, args)
        await settle(store)
        console.print(f"filled in {elapsed(started)}")
        some_mail = await store.read(
            lambda s: s.scalar(select(Mail.id).where(Mail.seq == args.mails // 2))
        )
        assert some_mail is not None
        cases = {"baseline: one mail by id": baseline_case(store, some_mail)}
        for label, q in QUERIES.items():
            cases[f"{label}: {q}"] = search_case(store, q)
        timings = await measure(store, cases, args.runs, args.warmup)
    title = f"search (limit 20) for one recipient among {args.mails:,} mails"
    console.print(timing_table(title, timings, baseline="baseline: one mail by id"))
    for t in timings[1:]:
        verdict = "[green]met[/]" if t.ms(0.95) < GOAL_MS else "[red]not met[/]"
        console.print(
            f"goal p95 < {GOAL_MS:.0f} ms — {t.label}: p95 {t.ms(0.95):.2f} ms: {verdict}"
        )
    console.print(f"reproduce: {reproduce('bench/search.py', args, parse_args([]))}")
    for line in facts(described):
        console.print(line)


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

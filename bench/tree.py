"""The conversation tree's first chunk in a big thread, beside a one-row lookup.

    .venv/bin/python bench/tree.py [--chain 10000 --forwards 1000 --limit 50]
                                   [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Builds, straight into a fresh store (Core inserts, no HTTP), a reply chain of
   `--chain` mails between the human `jianf` and the agent `builder`, and
   `--forwards` forwards hanging off it: each in a conversation of its own, its
   parent spread evenly along the chain (every `chain / forwards`-th mail, the
   oldest included), so the tree crosses conversations as real forwards do.
   Apart from the chain, one more mail gets `--replies` direct replies: a wide
   tree, where every step of the walk looks for the next of thousands of siblings.
2. Times, round-robin, `core.mail.tree.mail_tree` as the REST route calls it
   (`direction=around`, `limit`) around the newest and the oldest mail, the next
   chunk down and up from there by cursor, a chunk among the many replies, the
   first chunk's statement alone (no views), and the baseline: one mail fetched
   by its indexed `id` through the same `store.read`. Each figure includes the
   reader-thread hand-off (SQLite) or `run_sync` (asyncpg) and building the views.
3. Counts the SQL statements of each case (a `before_cursor_execute` listener).

Goal (docs/performance.md): one statement and under 20 ms on SQLite for the first chunk.
A benchmark: missing the goal is reported, not a failure. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
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
    query_plan,
    settle,
    timing_table,
)

from core.mail.tree import chunk_query, mail_tree
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Conversation, Delivery, Mail, table_of, utcnow

GOAL_MS = 20.0
DOMAIN = "agentmail.localhost"
JIANF = Principal(kind="human", name="jianf")
BATCH = 5000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chain", type=int, default=10_000, help="mails in the reply chain")
    parser.add_argument("--forwards", type=int, default=1000, help="forwards hanging off it")
    parser.add_argument("--replies", type=int, default=5000, help="replies to one other mail")
    parser.add_argument("--limit", type=int, default=50, help="the chunk size asked for")
    parser.add_argument("--runs", type=int, default=200, help="timed runs of each case")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--database-url", default="", help="PostgreSQL server; default SQLite")
    parser.add_argument("--plan", action="store_true", help="print the first chunk's query plan")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args(argv)


def mail_row(
    seq: int, mail_id: str, parent: str | None, session: str, human: bool
) -> dict[str, Any]:
    sender, recipient = ("jianf", "builder") if human else ("builder", "jianf")
    return {
        "seq": seq,
        "id": mail_id,
        "session_id": session,
        "parent_id": parent,
        "from_name": sender,
        "from_path": "" if human else "ModelRouter",
        "to_name": recipient,
        "to_path": "ModelRouter" if human else "",
        "cc": [],
        "subject": f"mail {seq}",
        "body": f"Body of mail {seq}. " * 8,
        "mail_type": "forward" if session != "chain" else "normal",
        "auto": False,
        "message_id": f"<{mail_id}@{DOMAIN}>",
        "created_at": utcnow(),
    }


async def build(store: Store, chain: int, forwards: int, replies: int) -> tuple[list[str], str]:
    """The chain's mail ids, oldest first (forwards get seqs after it), and the fan-out root."""
    now = utcnow()
    conversations = [{"id": "chain", "subject": "a long thread"}, {"id": "fan", "subject": "fan"}]
    conversations += [{"id": f"fwd-{n}", "subject": f"forward {n}"} for n in range(forwards)]
    for row in conversations:
        row.update(status="active", budget_used=0, created_by="jianf")
        row.update(created_at=now, updated_at=now)
    await bulk_insert(store, table_of(Conversation), conversations)
    ids = [str(uuid.uuid4()) for _ in range(chain)]
    step = max(1, chain // max(1, forwards))
    rows = [
        mail_row(n + 1, ids[n], ids[n - 1] if n else None, "chain", n % 2 == 0)
        for n in range(chain)
    ]
    rows += [
        mail_row(chain + n + 1, str(uuid.uuid4()), ids[(n * step) % chain], f"fwd-{n}", True)
        for n in range(forwards)
    ]
    fan_root = str(uuid.uuid4())
    rows.append(mail_row(len(rows) + 1, fan_root, None, "fan", True))
    rows += [
        mail_row(len(rows) + n + 1, str(uuid.uuid4()), fan_root, "fan", n % 2 == 1)
        for n in range(replies)
    ]
    for start in range(0, len(rows), BATCH):
        batch = rows[start : start + BATCH]
        await bulk_insert(store, table_of(Mail), batch)
        deliveries = [
            {"mail_seq": r["seq"], "recipient": r["to_name"], "kind": "to", "created_at": now}
            for r in batch
        ]
        await bulk_insert(store, table_of(Delivery), deliveries)
    return ids, fan_root


def chunk_case(store: Store, mail_id: str, **options: Any) -> Any:
    async def case() -> str:
        page = await mail_tree(store, DOMAIN, JIANF, mail_id, **options)
        depths = [m.depth for m in page.mails]
        span = f"depth {min(depths)}..{max(depths)}" if depths else "empty"
        return f"{len(page.mails)} mails, {span}"

    return case


def statement_case(store: Store, mail_id: str, limit: int) -> Any:
    """The first chunk's statement alone (what `mail_tree` adds is the views)."""
    query = chunk_query(JIANF.name, mail_id, "around", limit)

    async def case() -> str:
        rows = await store.read(lambda s: s.execute(query.statement, query.params).all())
        return f"{len(rows)} rows, no views built"

    return case


async def main(args: argparse.Namespace) -> None:
    async with fresh_store(args.database_url or None, args.keep) as (store, described):
        started = time.perf_counter()
        ids, fan_root = await build(store, args.chain, args.forwards, args.replies)
        built = f"{args.chain} chained mails + {args.forwards} forwards + {args.replies} replies"
        console.print(f"built {built} in {elapsed(started)}")
        await settle(store)
        limit = args.limit
        newest = await mail_tree(store, DOMAIN, JIANF, ids[-1], limit=limit)
        oldest = await mail_tree(store, DOMAIN, JIANF, ids[0], limit=limit)
        fan = await mail_tree(store, DOMAIN, JIANF, fan_root, direction="descendants", limit=limit)
        cases = {
            "baseline: one mail by id": baseline_case(store, ids[len(ids) // 2]),
            "around the newest": chunk_case(store, ids[-1], limit=limit),
            "around the oldest": chunk_case(store, ids[0], limit=limit),
            "  its statement alone (newest)": statement_case(store, ids[-1], limit),
            "next chunk up from the newest": chunk_case(
                store, ids[-1], direction="ancestors", limit=limit, cursor=newest.next_cursor_up
            ),
            "next chunk down from the oldest": chunk_case(
                store, ids[0], direction="descendants", limit=limit, cursor=oldest.next_cursor_down
            ),
            f"next chunk down among {args.replies} replies": chunk_case(
                store, fan_root, direction="descendants", limit=limit, cursor=fan.next_cursor_down
            ),
        }
        timings = await measure(store, cases, args.runs, args.warmup)
        if args.plan:
            query = chunk_query(JIANF.name, ids[-1], "around", limit)
            plan = await query_plan(store, query.statement, query.params)
            console.print("query plan of the first chunk around the newest:")
            for line in plan:
                console.print(f"  {line}")
    title = f"tree chunks (limit {limit}): {args.chain}-mail chain, {args.forwards} forwards"
    console.print(timing_table(title, timings, baseline="baseline: one mail by id"))
    for t in timings[1:3]:
        met = t.statements == 1 and t.ms(0.5) < GOAL_MS
        verdict = "[green]met[/]" if met else "[red]not met[/]"
        console.print(
            f"goal one statement, < {GOAL_MS:.0f} ms — {t.label}: {t.statements} statement(s), "
            f"p50 {t.ms(0.5):.2f} ms: {verdict}"
        )
    console.print(f"reproduce: {reproduce('bench/tree.py', args, parse_args([]))}")
    for line in facts(described):
        console.print(line)


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

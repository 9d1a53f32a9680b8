"""Inbox pages and unread counts in a store of a million mails, beside a one-row lookup.

    .venv/bin/python bench/inbox.py [--mails 1000000 --recipients 1000]
                                    [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Fills a fresh store with `--mails` mails across `--recipients` recipients
   (one delivery each), sent by 50 agents in 10,000 conversations, by Core
   `executemany` inserts in batches of `--batch` rows, printing progress. A share
   of the mails is unread (`--unread-share`) and archived (`--archived-share`).
   Mail goes round-robin over the recipients, except that one "heavy" recipient
   gets `--heavy-share` of all mails (default 10%, 100,000): the size where an
   index that does not give the order or the count shows.
2. Times, round-robin, for a typical recipient and the heavy one: the inbox
   page exactly as `core.mail.reading.inbox` runs it (count + page of 50, status=all
   and status=unread, through `store.read`, views built), the unread count
   alone, and the baseline: one mail fetched by its indexed `id`.
3. Prints the query plans (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN`)
   of the page and the count statements, which show the index they use.

Goal (docs/performance.md): under 10 ms each on SQLite. See bench/README.md.

With `--rows` it measures the list endpoints instead (bench/_inbox_rows.py): CPU per
request through the application in process, at `--rows-sizes` mails (10,000 and
100,000), for `GET /me/mail/inbox/rows`, the full `GET /me/mail/inbox` and the
baseline `GET /me/mail/{id}`, with the ratio to the baseline. Goal: ≤ 2 ms for the
newest 50 rows of 10,000.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from _cli import reproduce
from _db import (
    baseline_case,
    console,
    elapsed,
    facts,
    fresh_store,
    measure,
    query_plan,
    settle,
    timing_table,
)
from _inbox_rows import rows_bench
from sqlalchemy import select

from core.mail import reading
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Mail
from tests.support.seeding import InboxFill, fill_inbox

GOAL_MS = 10.0
DOMAIN = "agentmail.localhost"
CONVERSATIONS = 10_000
SENDERS = 50
HEAVY = "heavy"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=1_000_000)
    parser.add_argument("--recipients", type=int, default=1000)
    parser.add_argument("--heavy-share", type=float, default=0.1, help="mails to one recipient")
    parser.add_argument("--unread-share", type=float, default=0.1)
    parser.add_argument("--archived-share", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=20_000, help="rows per executemany")
    parser.add_argument("--runs", type=int, default=100, help="timed runs of each case")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--database-url", default="", help="PostgreSQL server; default SQLite")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--rows", action="store_true", help="the list endpoints, CPU per request")
    parser.add_argument("--rows-sizes", default="10000,100000", help="mails, comma-separated")
    return parser.parse_args(argv)


def recipient_name(n: int) -> str:
    return f"user{n:04d}"


async def fill(store: Store, args: argparse.Namespace) -> None:
    """The mails through tests/support/seeding.py (the browser suite's big inbox uses it
    too): round-robin over the recipients, `--heavy-share` of them to the heavy one."""

    def recipient(seq: int, rng: random.Random) -> str:
        return HEAVY if rng.random() < args.heavy_share else recipient_name(seq % args.recipients)

    started = time.perf_counter()

    def progress(done: int) -> None:
        if done % 100_000 < args.batch or done == args.mails:
            rate = done / (time.perf_counter() - started)
            console.print(f"  {done:>9,} mails + deliveries, {elapsed(started)}, {rate:,.0f}/s")

    plan = InboxFill(
        mails=args.mails,
        recipient=recipient,
        conversations=CONVERSATIONS,
        senders=SENDERS,
        unread_share=args.unread_share,
        archived_share=args.archived_share,
        batch=args.batch,
        domain=DOMAIN,
    )
    await fill_inbox(store, plan, progress)


def page_case(store: Store, name: str, status: reading.InboxStatus) -> Any:
    principal = Principal(kind="human", name=name)

    async def case() -> str:
        listed = await reading.inbox(store, DOMAIN, principal, status=status, limit=50)
        return f"{len(listed.mails)} mails of {listed.total:,}"

    return case


def count_case(store: Store, name: str) -> Any:
    count, _ = reading.inbox_statements(name, "unread", limit=50)

    async def case() -> str:
        total = await store.read(lambda s: s.scalar(count))
        return f"{total:,} unread"

    return case


async def print_plans(store: Store, name: str) -> None:
    for status in ("all", "unread"):
        count, page = reading.inbox_statements(name, status, limit=50)
        for label, statement in ((f"page, status={status}", page), (f"count, {status}", count)):
            console.print(f"query plan — {label} ({name}):")
            for line in await query_plan(store, statement, {}):
                console.print(f"  {line}")


async def main(args: argparse.Namespace) -> None:
    if args.rows:
        sizes = [int(size) for size in args.rows_sizes.split(",")]
        await rows_bench(args.database_url or None, sizes, args.runs, args.warmup)
        console.print(f"reproduce: {reproduce('bench/inbox.py', args, parse_args([]))}")
        return
    async with fresh_store(args.database_url or None, args.keep) as (store, described):
        started = time.perf_counter()
        console.print(f"filling {args.mails:,} mails for {args.recipients:,} recipients + 1 heavy")
        await fill(store, args)
        await settle(store)
        console.print(f"filled in {elapsed(started)}")
        typical = recipient_name(args.recipients // 2)
        some_mail = await store.read(
            lambda s: s.scalar(select(Mail.id).where(Mail.seq == args.mails // 2))
        )
        assert some_mail is not None
        cases = {"baseline: one mail by id": baseline_case(store, some_mail)}
        for who, name in (("typical", typical), ("heavy", HEAVY)):
            cases[f"{who}: inbox page, all"] = page_case(store, name, "all")
            cases[f"{who}: inbox page, unread"] = page_case(store, name, "unread")
            cases[f"{who}: unread count"] = count_case(store, name)
        timings = await measure(store, cases, args.runs, args.warmup)
        await print_plans(store, typical)
    title = f"inbox (limit 50) among {args.mails:,} mails, {args.recipients:,} recipients"
    console.print(timing_table(title, timings, baseline="baseline: one mail by id"))
    for t in timings[1:]:
        verdict = "[green]met[/]" if t.ms(0.5) < GOAL_MS else "[red]not met[/]"
        console.print(f"goal < {GOAL_MS:.0f} ms — {t.label}: p50 {t.ms(0.5):.2f} ms: {verdict}")
    console.print(f"reproduce: {reproduce('bench/inbox.py', args, parse_args([]))}")
    for line in facts(described):
        console.print(line)


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

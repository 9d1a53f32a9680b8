"""Group commit in isolation: concurrent `send_mail` on SQLite, grouped and not, in process.

    .venv/bin/python bench/group_commit.py [--mails 2000 --writers 10 --rounds 4]

Two fresh SQLite stores (WAL, synchronous=FULL, in one temp dir): one with group
commit (`Store(group_limit=64)`, the default) and the baseline with one
transaction per write (`group_limit=1`, the store before group commit, plus one
SAVEPOINT). `--writers` coroutines call the real `core.mail.send.send_mail` (a human
mails another human, ~500-byte body) until `--mails` are stored; the rounds
alternate between the stores so both see the same machine. Prints mails/s, mails
per COMMIT and CPU per mail of this process. No SMTP, no HTTP: this is the store's
share of `smtp_ingest.py` (see bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from sqlalchemy import event

from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.store.engine import Store, database_url
from core.store.migrate import migrate
from core.store.sqlite.group_commit import MAX_GROUP

D = "agentmail.localhost"
SENDER = Principal(kind="human", name="jianf")
console = Console(highlight=False, width=120)


@dataclass
class Totals:
    mails: int = 0
    commits: int = 0
    seconds: float = 0.0
    cpu: float = 0.0


async def open_store(path: Path, group_limit: int) -> tuple[Store, list[int]]:
    store = Store(database_url("", path), group_limit=group_limit)
    await migrate(store)
    await create_user(store, "jianf", "password123")
    await create_user(store, "bob", "password123")
    commits: list[int] = []
    event.listen(store.engines[0], "commit", lambda _conn: commits.append(1))
    return store, commits


async def run_round(
    store: Store, commits: list[int], first: int, count: int, writers: int
) -> Totals:
    body = "please look at the retries in the router and report back. " * 8
    next_index = iter(range(first, first + count))

    async def writer() -> None:
        for index in next_index:
            request = SendRequest(to="bob@", subject=f"mail {index}", body=body)
            await send_mail(store, D, SENDER, request)

    before, cpu = len(commits), time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return Totals(
        mails=count,
        commits=len(commits) - before,
        seconds=time.perf_counter() - started,
        cpu=time.process_time() - cpu,
    )


async def main(args: argparse.Namespace) -> int:
    set_bcrypt_rounds(4)
    tmp = Path(tempfile.mkdtemp(prefix="agentmail-bench-"))
    modes = {f"group commit (<= {MAX_GROUP} per COMMIT)": MAX_GROUP, "one COMMIT per write": 1}
    totals = {name: Totals() for name in modes}
    stores: dict[str, tuple[Store, list[int]]] = {}
    console.print(f"[bold]group_commit[/]  {' '.join(sys.argv[1:]) or '(defaults)'}")
    console.print(f"SQLite {sqlite3.sqlite_version}, WAL, synchronous=FULL, files in {tmp}")
    try:
        for number, (name, limit) in enumerate(modes.items()):
            stores[name] = await open_store(tmp / f"{number}.db", limit)
        per_round = -(-args.mails // args.rounds)
        for number in range(args.rounds):
            count = min(per_round, args.mails - number * per_round)
            for name, (store, commits) in stores.items():
                result = await run_round(store, commits, number * per_round, count, args.writers)
                total = totals[name]
                total.mails += result.mails
                total.commits += result.commits
                total.seconds += result.seconds
                total.cpu += result.cpu
    finally:
        for store, _ in stores.values():
            await store.close()
        shutil.rmtree(tmp, ignore_errors=True)
    for name, t in totals.items():
        console.print(
            f"{name:<32} {t.mails / t.seconds:6.0f} mails/s   {t.mails / t.commits:5.1f} mails per"
            f" COMMIT   {t.cpu / t.mails * 1000:4.1f} ms CPU per mail"
        )
    grouped, single = (totals[name] for name in modes)
    ratio = (grouped.mails / grouped.seconds) / (single.mails / single.seconds)
    console.print(f"group commit / one COMMIT per write: [bold]{ratio:.2f}x[/]")
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mails", type=int, default=2000, help="mails per store (2000)")
    parser.add_argument("--writers", type=int, default=10, help="concurrent senders (10)")
    parser.add_argument("--rounds", type=int, default=4, help="alternations (4)")
    args = parser.parse_args()
    if min(args.mails, args.writers, args.rounds) < 1:
        parser.error("--mails, --writers and --rounds must be >= 1")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

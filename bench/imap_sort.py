"""IMAP SORT and THREAD (RFC 5256) on a 1,000-message folder, beside Dovecot on the same bytes.

    .venv/bin/python bench/imap_sort.py [--messages 1000 --rounds 5]
                                        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. In process, what the design of the keys turns on (docs/performance.md, "SORT and
   THREAD"): parsing `--messages` originals' keys from their header sections
   (imap_view/sort_keys.py), a rendering's keys from its columns, and, for comparison,
   rendering their headers as FETCH ENVELOPE does (core/rendering/render.py).
2. Starts the gateway (its own process) and fills two INBOXes: alice's with
   `--messages` mails over REST (renderings: keys from columns; SIZE renders them),
   heavy's with as many originals by bulk inserts (the rows an SMTP delivery leaves:
   keys parsed from their headers once, then kept).
3. For each INBOX, a Dovecot holding the same bytes (tests/support/dovecot.py): the
   first `SORT (SUBJECT)` after the gateway started (cold: it reads and parses the keys;
   Dovecot builds its cache), then `--rounds` of each command in COMMANDS, gateway and
   Dovecot alternating. Their answers must be the same, or the bench exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime

from _cli import add_database_url
from _db import console
from _imap_fill import HEAVY, PASSWORD, READER, GatewayRun, fill_over_rest, gateway_run
from _imap_fill import setup_accounts as accounts
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.mailboxes.uids import INBOX, create_folders
from core.rendering.render import render_header
from core.rendering.sort_rows import header_of, rendered_fields
from core.store.models import (
    Conversation,
    Delivery,
    ImapFolder,
    ImapUid,
    Mail,
    RawMessage,
    table_of,
    utcnow,
)
from imap_view.sort_keys import keys_of_fields, keys_of_header
from tests.support.dovecot import running_dovecot
from tests.support.imap_values import fetch_items
from tests.support.raw_imap import RawImap

COMMANDS = [
    b"SORT (SUBJECT) UTF-8 ALL", b"SORT (REVERSE DATE) UTF-8 ALL", b"SORT (FROM) UTF-8 ALL",
    b"SORT (SIZE) UTF-8 ALL", b"THREAD REFERENCES UTF-8 ALL", b"THREAD ORDEREDSUBJECT UTF-8 ALL",
]  # fmt: skip
DOMAIN = "agentmail.localhost"
START = datetime(2026, 1, 5, 8, tzinfo=UTC)


def original(n: int, rng: random.Random) -> bytes:
    """An everyday message of a thread of five: replies, forwards, list tags, zones."""
    thread, place = divmod(n, 5)
    subject = f"Topic {thread % 97}: build and release"
    subject = ("Re: " * place + rng.choice(["", "Fwd: ", "[team] "]) + subject).strip()
    zone = timedelta(hours=rng.choice([-8, -5, 0, 1, 2, 9]))
    sent = (START + timedelta(minutes=7 * n + rng.randint(0, 90))).astimezone(timezone(zone))
    ancestors = " ".join(f"<{thread * 5 + k}@bench.example>" for k in range(place))
    fields = [
        f"From: User {rng.randint(1, 40)} <user{rng.randint(1, 40)}@example.com>",
        f"To: {HEAVY}@{DOMAIN}",
        *([f"Cc: cc{rng.randint(1, 9)}@example.com"] if n % 3 == 0 else []),
        f"Subject: {subject}",
        f"Date: {format_datetime(sent)}",
        f"Message-ID: <{n}@bench.example>",
        *([f"References: {ancestors}"] if ancestors else []),
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
    ]
    body = "A line of the message body, as people write them.\r\n" * rng.randint(5, 60)
    return ("\r\n".join(fields) + "\r\n\r\n" + body).encode()


def fill_originals(count: int) -> object:
    """The write of `count` originals into heavy's INBOX: raw bytes, mails, deliveries,
    UIDs (what SMTP leaves but the events)."""
    rng = random.Random(5256)
    messages = [original(n, rng) for n in range(count)]

    def write(session: Session) -> None:
        conversation = str(uuid.uuid4())
        now = utcnow()
        session.execute(
            table_of(Conversation).insert(),
            [{"id": conversation, "subject": "bench", "status": "active", "budget_used": 0,
              "created_by": HEAVY, "created_at": now, "updated_at": now}],
        )  # fmt: skip
        create_folders(session, HEAVY, [INBOX])
        folder = session.scalar(
            select(ImapFolder.id).where(ImapFolder.owner == HEAVY, ImapFolder.key == INBOX)
        )
        for n, raw in enumerate(messages):
            digest = hashlib.sha256(raw).hexdigest()
            session.execute(
                table_of(RawMessage).insert(),
                [{"sha256": digest, "size": len(raw), "data": raw, "created_at": now,
                  "opaque": False}],
            )  # fmt: skip
            mail = Mail(
                id=str(uuid.uuid4()), session_id=conversation, from_name="",
                from_path=f"user{n % 40}@example.com", to_name=HEAVY, cc=[],
                subject="(see the original)", message_id=f"<{n}@bench.example>",
                raw_sha256=digest, created_at=now - timedelta(seconds=count - n),
            )  # fmt: skip
            session.add(mail)
            session.flush()
            session.add(Delivery(mail_seq=mail.seq, recipient=HEAVY, created_at=now))
            session.add(ImapUid(folder_id=folder, uid=n + 1, mail_seq=mail.seq, modseq=1))
        session.execute(
            update(ImapFolder)
            .where(ImapFolder.id == folder)
            .values(next_uid=count + 1, highest_modseq=1)
        )

    return write


def in_process(count: int) -> None:
    """The CPU of each way to a message's keys, per `count` messages."""
    rng = random.Random(5256)
    headers = [header_of(original(n, rng)) for n in range(count)]
    mails = [
        Mail(
            seq=n, id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), from_name="builder",
            from_path="ws", to_name=READER, to_path="", cc=[], subject=f"Status report {n}",
            body="text", mail_type="normal", auto=False,
            message_id=f"<{n}@{DOMAIN}>", created_at=START + timedelta(minutes=n),
        )
        for n in range(count)
    ]  # fmt: skip
    timed = {}
    started = time.process_time()
    for header in headers:
        keys_of_header(header)
    timed["original: keys parsed from its header"] = time.process_time() - started
    started = time.process_time()
    for mail in mails:
        keys_of_fields(rendered_fields(mail, "task", DOMAIN))
    timed["rendering: keys from its columns"] = time.process_time() - started
    started = time.process_time()
    for mail in mails:
        render_header(mail, "task", DOMAIN)
    timed["rendering: its header rendered (not done)"] = time.process_time() - started
    console.print(f"[bold]keys of {count} messages, in process[/] (CPU)")
    for what, seconds in timed.items():
        console.print(
            f"  {what:44} {seconds * 1000:8.1f} ms  ({seconds * 1e6 / count:.0f} µs each)"
        )


async def session(port: int, user: str) -> RawImap:
    imap = await RawImap.open(port)
    await imap.login(user, PASSWORD)
    assert (await imap.command(b"S SELECT INBOX"))[-1].startswith(b"S OK")
    return imap


async def timed(imap: RawImap, line: bytes) -> tuple[float, bytes]:
    started = time.perf_counter()
    lines = await imap.command(b"A " + line)
    seconds = time.perf_counter() - started
    if not lines[-1].startswith(b"A OK"):
        raise RuntimeError(f"{line!r}: {lines[-1]!r}")
    answer = next(x for x in lines if x.startswith((b"* SORT", b"* THREAD")))
    return seconds, answer.strip()


async def compare(run: GatewayRun, user: str, what: str, rounds: int) -> bool:
    workdir = run.workdir / f"dovecot-{user}"
    async with running_dovecot(workdir, user, PASSWORD, plaintext=True) as dove:
        ours = await session(run.imap_port, user)
        fetched = b"".join(await ours.command(b"F FETCH 1:* (BODY.PEEK[])"))
        theirs = await RawImap.open(dove.port)
        await theirs.login(user, PASSWORD)
        for _, items in sorted(fetch_items(fetched).items()):
            data = items[b"BODY[]"]
            assert isinstance(data, bytes)
            await theirs.command(b"P APPEND INBOX {%d+}\r\n" % len(data) + data)
        assert (await theirs.command(b"S SELECT INBOX"))[-1].startswith(b"S OK")
        same = True
        console.print(f"\n[bold]{what}[/] (median of {rounds}; ms)")
        console.print(f"  {'':34} {'gateway':>9} {'Dovecot':>9}")
        for line in COMMANDS:
            times: dict[str, list[float]] = {"gw": [], "dove": []}
            answers = {}
            for _ in range(rounds):
                for name, imap in (("gw", ours), ("dove", theirs)):
                    seconds, answers[name] = await timed(imap, line)
                    times[name].append(seconds)
            if answers["gw"] != answers["dove"]:
                same = False
                console.print(f"  [red]{line.decode()}: the answers differ[/]")
            gw_ms, dovecot_ms = (statistics.median(times[n]) * 1000 for n in ("gw", "dove"))
            console.print(f"  {line.decode()[:34]:34} {gw_ms:9.1f} {dovecot_ms:9.1f}")
        await ours.close()
        await theirs.close()
        return same


async def main(args: argparse.Namespace) -> int:
    in_process(args.messages)
    title = f"[bold]imap_sort[/]  --messages {args.messages} --rounds {args.rounds}"
    async with gateway_run(args, title, "gateway 1 process, Dovecot its own") as run:
        key = await accounts(run.base_url)
        await fill_over_rest(run.base_url, key, args.messages)
        store = run.store()
        try:
            await store.write(fill_originals(args.messages))  # type: ignore[arg-type]
        finally:
            await store.close()
        for user in (READER, HEAVY):
            imap = await session(run.imap_port, user)
            cold, _ = await timed(imap, b"SORT (SUBJECT) UTF-8 ALL")
            warm, _ = await timed(imap, b"SORT (SUBJECT) UTF-8 ALL")
            console.print(
                f"{user}: first SORT (SUBJECT) {cold * 1000:.1f} ms, the next {warm * 1000:.1f} ms"
            )
            await imap.close()
        same = await compare(run, READER, f"alice: {args.messages} renderings (REST)", args.rounds)
        same = await compare(run, HEAVY, f"heavy: {args.messages} originals", args.rounds) and same
    return 0 if same else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="IMAP SORT and THREAD beside Dovecot.")
    parser.add_argument("--messages", type=int, default=1000, help="each INBOX (1000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds of each (5)")
    add_database_url(parser)
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

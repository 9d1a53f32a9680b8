"""Mail beyond the gateway, side by side with the submission path, in one run (as root).

    sudo .venv/bin/python bench/outside.py [--mails 500 --connections 10 --size 4096]
                                           [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Starts the outside world of the tests (tests/support/outside: Debian's Postfix on
   its own host, Dovecot, the test DNS; network namespaces, hence root) and the real
   gateway (`agentmail serve`) as its own process, with the world's Postfix (port 25,
   which relays for the world's network) as its smarthost.
2. **submission**: `--connections` aiosmtplib clients submit `--mails` messages to an
   agent over SMTP AUTH (bench/smtp_ingest.py's clients); a mail counts at its `250`.
3. **outbound**: as many mails to `mailto:alice@outside.test`, sent over REST by as many
   clients; timed from the first send to the last job the database shows `sent`, that
   is to Postfix's `250` (the gateway's sender loop: claim, render, DKIM-sign, SMTP).
4. **inbound (MX)**: the gateway's MX listener (`AGENTMAIL_MX_PORT`, its DNS the
   world's) takes as many mails from `alice@outside.test`, signed by `outside.test`'s
   key, to the bench user's own address (her external address, verified with the code
   the gateway mailed to her Dovecot mailbox through Postfix): each judged (SPF, DKIM,
   DMARC), `Authentication-Results` written, stored; a mail counts at its `250`.

It prints a table (mails/s, CPU ms a mail) and each path's ratio to submission. The
clients' CPU is shown beside the server's: a client near one core would be the limit.
Not in CI; `make bench-outside`. docs/performance.md, "Mail beyond the gateway".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from email.utils import formatdate, make_msgid
from pathlib import Path

import asyncpg
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the outside world lives in tests/support

from _children import drop_pg_database, free_port, fresh_database, gateway_argv, gateway_env, spawn  # noqa: E402
from _cli import add_database_url, reproduce  # noqa: E402
from _report import console  # noqa: E402
from _wrk import ServerCpu, load_average  # noqa: E402
from smtp_ingest import ADMIN_PASSWORD, Round, message, send_round, setup_accounts  # noqa: E402

from tests.support.outside import OutsideWorld, running_outside_world  # noqa: E402

ALICE = "alice@outside.test"


async def _outbound(
    world: OutsideWorld, base_url: str, key: str, cpu: ServerCpu, args: argparse.Namespace
) -> Round:
    """`args.mails` sends to alice over REST; timed until every job is `sent`."""
    result = Round()
    body = "line of the outbound benchmark, padded to size ....\n" * max(1, args.size // 52)
    queue = list(range(args.mails))
    headers = {"Authorization": f"Bearer {key}"}

    async def client() -> None:
        async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as http:
            while queue:
                index = queue.pop()
                mail = {"to": f"mailto:{ALICE}", "subject": f"outbound {index:06d}", "body": body}
                sent = await http.post("/api/v1/me/mail/send", json=mail)
                if sent.status_code != 200:
                    result.refused.append(sent.text[:200])

    before, client_cpu = await cpu.sample(), time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(args.connections)))
    enqueued = time.perf_counter() - started
    expected = args.mails - len(result.refused)
    while (done := await _settled(args)) < expected:
        await asyncio.sleep(0.05)
    result.seconds = time.perf_counter() - started
    result.sent = done
    result.server_cpu = ServerCpu.spent(before, await cpu.sample())
    result.client_cpu = time.process_time() - client_cpu
    result.load_averages.append(load_average())
    console.print(f"outbound     {args.mails} enqueued in {enqueued:.1f} s, all sent after")
    return result


async def _settled(args: argparse.Namespace) -> int:
    query = "SELECT count(*) FROM outbound_jobs WHERE state <> 'queued'"
    if args.pg_url:
        connection = await asyncpg.connect(args.pg_url)
        try:
            return int(await connection.fetchval(query))
        finally:
            await connection.close()

    def count() -> int:
        with sqlite3.connect(f"file:{args.sqlite_path}?mode=ro", uri=True) as db:
            return int(db.execute(query).fetchone()[0])

    return await asyncio.to_thread(count)


def _signed(world: OutsideWorld, to: str, index: int, size: int) -> tuple[str, bytes]:
    head = (
        f"From: {ALICE}\r\nTo: {to}\r\n"
        f"Subject: inbound {index:06d}\r\nDate: {formatdate()}\r\n"
        f"Message-ID: {make_msgid(domain='outside.test')}\r\n\r\n"
    )
    return to, world.dkim.sign((head + ("y" * 70 + "\r\n") * max(1, size // 72)).encode())


async def _verify_alice(world: OutsideWorld, base_url: str) -> None:
    """The bench user's external address alice@outside.test, verified by its code."""
    async with httpx.AsyncClient(base_url=base_url, headers={"Origin": base_url}) as http:
        login = {"username": "bench", "password": "bench-password"}
        (await http.post("/api/v1/auth/login", json=login)).raise_for_status()
        made = await http.post("/api/v1/me/external-addresses", json={"address": ALICE})
        made.raise_for_status()
        [mail] = await world.wait_for_mail(lambda m: b"verification code" in m)
        code = re.search(rb"code: (\d{6})", mail)
        assert code is not None, mail[:500]
        checked = await http.post(
            f"/api/v1/me/external-addresses/{made.json()['address_id']}/verify",
            json={"code": code.group(1).decode()},
        )
        checked.raise_for_status()


async def _inbound(
    world: OutsideWorld, base_url: str, mx_port: int, cpu: ServerCpu, args: argparse.Namespace
) -> Round:
    """Signed mails from alice@outside.test into the MX listener, to her own address."""
    await _verify_alice(world, base_url)
    items = [_signed(world, "bench@agentmail.localhost", i, args.size) for i in range(args.mails)]
    return await send_round(cpu, mx_port, "", items, args.connections, sender=ALICE)


def _table(rows: list[tuple[str, Round]]) -> None:
    console.print(
        f"\n{'path':<44} {'mails':>6} {'s':>7} {'mails/s':>8} {'CPU ms':>7} {'client s':>8}"
    )
    for name, row in rows:
        console.print(
            f"{name:<44} {row.sent:>6} {row.seconds:>7.2f} {row.rate:>8.1f}"
            f" {row.cpu_ms_per_message:>7.2f} {row.client_cpu:>8.2f}",
            highlight=False,
        )
    base = rows[0][1].rate
    for name, row in rows[1:]:
        ratio = row.rate / base if base else float("nan")
        console.print(f"ratio {name.split(' (')[0]} / submission: {ratio:.2f}")


async def main(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        console.print("bench/outside.py needs root (the outside world's network namespaces)")
        return 2
    console.print(f"[bold]outside[/]  {reproduce('bench/outside.py', args, parse_args([]))}")
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-bench-outside-"))
    args.pg_url, backend = await fresh_database(args.database_url, "WAL, fresh file")
    args.sqlite_path = workdir / "data" / "agentmail.db"
    console.print(f"database {backend}; machine {os.cpu_count()} CPUs; load {load_average()}")
    rows: list[tuple[str, Round]] = []
    try:
        async with running_outside_world() as world:
            rows = await _run(world, workdir, args)
    finally:
        if args.pg_url:
            await drop_pg_database(args.database_url, args.pg_url)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    _table(rows)
    refused = [r for _, row in rows for r in row.refused]
    for problem in refused[:5]:
        console.print(f"[red]refused or not passed:[/] {problem}")
    return 1 if refused else 0


async def _run(
    world: OutsideWorld, workdir: Path, args: argparse.Namespace
) -> list[tuple[str, Round]]:
    env = gateway_env(ADMIN_PASSWORD, args.pg_url)
    serve = argparse.Namespace(gateway_command="", profile=None, profile_out=None)
    env.update(
        {
            "AGENTMAIL_SMARTHOST": f"{world.address('mx')}:25",
            "AGENTMAIL_SMARTHOST_TLS": "none",
            "AGENTMAIL_OUTBOUND_PER_SENDER_PER_HOUR": "1000000",
            "AGENTMAIL_OUTBOUND_PER_DOMAIN_PER_HOUR": "1000000",
            "AGENTMAIL_SECRET_KEY": "the outside benchmark's secret key, 32+ characters",
            "AGENTMAIL_DNS_SERVERS": world.address("dns"),
        }
    )
    http_port, smtp_port, mx_port = free_port(), free_port(), free_port()
    env["AGENTMAIL_MX_PORT"] = str(mx_port)
    argv = [*gateway_argv(serve, http_port, workdir / "data"), "--smtp-port", str(smtp_port)]
    gateway = spawn("gateway", argv, env, workdir / "gateway.log", http_port)
    try:
        await gateway.wait_healthy("/api/v1/health")
        key = await setup_accounts(gateway, 1)
        async with httpx.AsyncClient(
            base_url=gateway.base_url, headers={"Origin": gateway.base_url}
        ) as http:
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            (await http.post("/api/v1/auth/login", json=login)).raise_for_status()
            enabled = await http.patch("/api/v1/admin/users/bench", json={"outbound_mail": True})
            enabled.raise_for_status()
        cpu = ServerCpu(gateway, args.pg_url)
        items = [message("bench", i, args.size, 1) for i in range(args.mails)]
        submission = await send_round(cpu, smtp_port, key, items, args.connections)
        outbound = await _outbound(world, gateway.base_url, key, cpu, args)
        inbound = await _inbound(world, gateway.base_url, mx_port, cpu, args)
    finally:
        await gateway.stop()
    return [
        ("submission (SMTP AUTH to an agent, stored)", submission),
        ("outbound (REST send to Postfix's 250)", outbound),
        ("inbound (MX: SPF+DKIM+DMARC, stored)", inbound),
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Outbound, inbound checks and submission.")
    parser.add_argument("--mails", type=int, default=500, help="mails each path (500)")
    parser.add_argument("--connections", type=int, default=10, help="clients each path (10)")
    parser.add_argument("--size", type=int, default=4096, help="message size in bytes (4096)")
    add_database_url(parser)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, database)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse_args())))

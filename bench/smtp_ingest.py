"""SMTP ingest: durable messages per second through the gateway, beside a bare aiosmtpd sink.

    .venv/bin/python bench/smtp_ingest.py [--messages 5000 --connections 10 --size 4096]
                                          [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

1. Starts the real gateway (`agentmail serve`) as its own process on a fresh data
   directory (or a fresh PostgreSQL database), and the baseline `_smtp_sink.py`
   (aiosmtpd, AUTH accepted without a lookup, every message discarded) as another.
2. Over HTTP: logs in as admin, creates the human `bench` with a user key and
   registers the agent `ingest` with the workspace `ws0` (and more with
   `--conversations`).
3. `--connections` aiosmtplib clients, each signed in once with AUTH PLAIN (user
   `bench`, the user key; the sink accepts the same exchange), send the
   `--messages` ~`--size`-byte messages from `bench@D` to `ingest+ws0@D` (spread
   over `ws0`..`wsN` with `--conversations N`: one conversation each). The
   load alternates between the gateway and the sink in `--rounds` rounds, so both
   see the same machine. A message counts when its `250` arrived.
4. The check: after the gateway stopped, the database must hold every message
   (warm-up included) exactly once — counted by its unique subject.

Exit status 1 when a message was refused, lost or stored twice. Missing the goal
(the gateway at >= 50% of the sink's rate) is not a failure: this is a benchmark.
See bench/README.md for the figures and how to read them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path

import aiosmtplib
import asyncpg
import httpx
from _children import (
    BENCH_DIR,
    Child,
    drop_pg_database,
    free_port,
    fresh_database,
    gateway_argv,
    gateway_env,
    spawn,
)
from _peers import MAILDEV_VERSION, maildev_command
from _report import console, print_cprofile, print_py_spy
from _wrk import ServerCpu, load_average
from sqlalchemy.engine import make_url

ADMIN_PASSWORD = "bench-admin-password"
DOMAIN = "agentmail.localhost"
SENDER = f"bench@{DOMAIN}"
GOAL_RATIO = 0.5
PEER_GOAL = 1.2  # the goal: the gateway (with fsync) at 1.2x maildev (unsynced files)


def recipient(index: int, conversations: int) -> str:
    """Message `index` goes to the default conversation of workspace `ws<index % n>`."""
    return f"ingest+ws{index % conversations}@{DOMAIN}"


def message(tag: str, index: int, size: int, conversations: int) -> tuple[str, bytes]:
    """One RFC 5322 message of about `size` bytes with a unique subject, and its recipient."""
    to = recipient(index, conversations)
    head = (
        f"From: {SENDER}\r\nTo: {to}\r\nSubject: ingest {tag} {index:06d}\r\n"
        f"Message-ID: <ingest-{tag}-{index}@bench.localhost>\r\nDate: {formatdate()}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
    )
    line = f"line of the ingest benchmark, message {index:06d}, padded to size ....\r\n"
    body = line * max(1, (size - len(head)) // len(line))
    return to, (head + body).encode()


@dataclass
class Round:
    sent: int = 0
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    load_averages: list[str] = field(default_factory=list)

    def add(self, other: Round) -> None:
        self.sent += other.sent
        self.refused += other.refused
        self.seconds += other.seconds
        self.server_cpu += other.server_cpu
        self.client_cpu += other.client_cpu
        self.load_averages += other.load_averages

    @property
    def rate(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_message(self) -> float:
        return 1000 * self.server_cpu / self.sent if self.sent else float("nan")


async def send_round(
    server: ServerCpu,
    port: int,
    key: str,
    items: list[tuple[str, bytes]],
    n: int,
    sender: str = SENDER,
) -> Round:
    """Sign `n` clients in (no AUTH with an empty `key`: the MX listener), then time how
    long they take to get `items` acknowledged."""
    clients = [aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=60) for _ in range(n)]
    for client in clients:
        await client.connect()
        if key:
            await client.login("bench", key)
    queue = list(reversed(items))
    result = Round()

    async def worker(client: aiosmtplib.SMTP) -> None:
        while queue:
            to, raw = queue.pop()
            try:
                await client.sendmail(sender, [to], raw)
                result.sent += 1
            except aiosmtplib.SMTPException as error:
                result.refused.append(repr(error))

    cpu, client_cpu = await server.sample(), time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(worker(c) for c in clients))
    result.seconds = time.perf_counter() - started
    result.server_cpu = ServerCpu.spent(cpu, await server.sample())
    result.client_cpu = time.process_time() - client_cpu
    result.load_averages.append(load_average())
    for client in clients:
        await client.quit()
    return result


async def setup_accounts(gateway: Child, conversations: int) -> str:
    """The human sender's user key, and the receiving agent, made over HTTP."""
    async with httpx.AsyncClient(
        base_url=gateway.base_url, headers={"Origin": gateway.base_url}, timeout=30.0
    ) as http:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        (await http.post("/api/v1/auth/login", json=login)).raise_for_status()
        user = {"name": "bench", "password": "bench-password", "is_admin": False}
        (await http.post("/api/v1/admin/users", json=user)).raise_for_status()
        agent_key = await http.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})
        workspaces = [{"name": f"ws{i}", "path": f"/srv/ws{i}"} for i in range(conversations)]
        agent = {"name": "ingest", "workspaces": workspaces}
        registered = await http.post(
            "/api/v1/agent/register",
            json={**agent, "platform": "bench"},
            headers={"Authorization": f"Bearer {agent_key.json()['key']}"},
        )
        registered.raise_for_status()
        http.cookies.clear()
        login = {"username": "bench", "password": "bench-password"}
        (await http.post("/api/v1/auth/login", json=login)).raise_for_status()
        key = await http.post("/api/v1/me/keys", json={"lifecycle": "permanent"})
        key.raise_for_status()
        return str(key.json()["key"])


async def stored_subjects(database_url: str, sqlite_path: Path) -> dict[str, int]:
    query = "SELECT subject, count(*) FROM mails WHERE subject LIKE 'ingest %' GROUP BY subject"
    if database_url:
        parsed = make_url(database_url)
        conn = await asyncpg.connect(
            host=parsed.host, port=parsed.port, user=parsed.username, database=parsed.database
        )
        try:
            return {row[0]: row[1] for row in await conn.fetch(query)}
        finally:
            await conn.close()
    with sqlite3.connect(sqlite_path) as db:
        return {row[0]: row[1] for row in db.execute(query)}


def verify(counts: dict[str, int], expected: set[str]) -> list[str]:
    missing = sorted(expected - counts.keys())
    twice = sorted(s for s, n in counts.items() if n != 1)
    unknown = sorted(counts.keys() - expected)
    problems = [f"{len(missing)} messages missing, e.g. {missing[:3]}"] if missing else []
    problems += [f"{len(twice)} messages stored more than once, e.g. {twice[:3]}"] if twice else []
    problems += [f"{len(unknown)} unexpected messages, e.g. {unknown[:3]}"] if unknown else []
    return problems


def reproduce(args: argparse.Namespace) -> str:
    argv = [".venv/bin/python", "bench/smtp_ingest.py", "--messages", str(args.messages)]
    argv += ["--connections", str(args.connections), "--size", str(args.size)]
    argv += ["--rounds", str(args.rounds), "--conversations", str(args.conversations)]
    if args.database_url:
        argv += ["--database-url", args.database_url]
    if args.profile:
        argv += ["--profile", args.profile]
    if not args.peer:
        argv.append("--no-peer")
    if args.gateway_command:
        argv += ["--gateway-command", args.gateway_command]
    return shlex.join(argv)


def print_results(rows: list[tuple[str, Round]], rounds: int, problems: list[str]) -> None:
    """One line per server, CPU ms per message first (the server's process tree, plus the
    PostgreSQL backends of the gateway's database), then the ratios of the goals."""
    for name, r in rows:
        console.print(
            f"{name:<28} [bold]{r.cpu_ms_per_message:5.2f} ms CPU/msg[/]  {r.sent:>6} messages in"
            f" {r.seconds:6.2f} s = [bold]{r.rate:7.0f}/s[/]   server CPU"
            f" {r.server_cpu / r.seconds:4.0%}, client CPU {r.client_cpu / r.seconds:4.0%}"
        )
    console.print(
        f"load average (1/5/15 min) after each round: {' | '.join(rows[0][1].load_averages)}"
    )
    gateway, sink = rows[0][1], rows[1][1]
    ratio = gateway.rate / sink.rate if sink.rate else 0.0
    mark = "[green]met[/]" if ratio >= GOAL_RATIO else "[red]not met[/]"
    console.print(f"ratio gateway / sink         [bold]{ratio:.0%}[/]  (goal >= 50%: {mark})")
    for name, peer in rows[2:]:
        ratio = gateway.rate / peer.rate if peer.rate else 0.0
        mark = "[green]met[/]" if ratio >= PEER_GOAL else "[red]not met[/]"
        console.print(f"ratio gateway / {name:<12} [bold]{ratio:.2f}x[/]  (goal >= 1.2x: {mark})")
    for problem in problems:
        console.print(f"[red]FAIL[/] {problem}")
    if not problems:
        console.print(f"OK   every message stored exactly once ({rounds} rounds)")


async def wait_for_smtp(child: Child, port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if child.proc.poll() is not None:
            raise RuntimeError(f"{child.name} exited ({child.proc.returncode}):\n{child.tail()}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{child.name}: no SMTP on {port}:\n{child.tail()}") from None
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return


def start_maildev(workdir: Path, env: dict[str, str], key: str) -> tuple[Child, int] | None:
    """maildev, keeping each message in a file of its mail directory (no fsync), with
    SMTP AUTH required as the gateway does (the same user and key)."""
    command = maildev_command()
    if command is None:
        return None
    port = free_port()
    argv = [*command, "--smtp", str(port), "--ip", "127.0.0.1", "--disable-web"]
    argv += ["--incoming-user", "bench", "--incoming-pass", key]
    argv += ["--mail-directory", str(workdir / "maildev")]
    return spawn("maildev", argv, env, workdir / "maildev.log", port), port


async def main(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-bench-"))
    database_url, backend = await fresh_database(
        args.database_url, "WAL, synchronous=FULL, fresh file"
    )
    env = gateway_env(ADMIN_PASSWORD, database_url)
    console.print(f"[bold]smtp_ingest[/]  {reproduce(args)}")
    console.print(f"database     {backend}")
    console.print(
        f"machine      {os.cpu_count()} CPUs; each server 1 process; load {load_average()}"
    )
    expected = set[str]()
    children: list[Child] = []
    rows: list[tuple[str, Round]] = []
    try:
        http_port, smtp_port, sink_port = free_port(), free_port(), free_port()
        argv = [*gateway_argv(args, http_port, workdir / "data"), "--smtp-port", str(smtp_port)]
        gateway = spawn("gateway", argv, env, workdir / "gateway.log", http_port)
        children.append(gateway)
        sink_argv = [sys.executable, str(BENCH_DIR / "_smtp_sink.py"), "--port", str(sink_port)]
        sink = spawn("sink", sink_argv, env, workdir / "sink.log", sink_port)
        children.append(sink)
        await gateway.wait_healthy("/api/v1/health")
        key = await setup_accounts(gateway, args.conversations)
        servers = [
            ("gateway (stored, committed)", ServerCpu(gateway, database_url), smtp_port),
            ("bare aiosmtpd sink", ServerCpu(sink), sink_port),
        ]
        maildev = start_maildev(workdir, env, key) if args.peer else None
        if maildev is not None:
            children.append(maildev[0])
            await wait_for_smtp(maildev[0], maildev[1])
            servers.append((f"maildev {MAILDEV_VERSION}", ServerCpu(maildev[0]), maildev[1]))
        rows = [(name, Round()) for name, _, _ in servers]
        warm = [message("warm", i, args.size, args.conversations) for i in range(args.warmup)]
        expected |= {f"ingest warm {i:06d}" for i in range(args.warmup)}
        for _, cpu, port in servers:
            await send_round(cpu, port, key, warm, args.connections)
        per_round = -(-args.messages // args.rounds)
        for number in range(args.rounds):
            first = number * per_round
            indexes = range(first, min(args.messages, first + per_round))
            items = [message("bench", i, args.size, args.conversations) for i in indexes]
            expected |= {f"ingest bench {i:06d}" for i in indexes}
            line = []
            for (name, total), (_, cpu, port) in zip(rows, servers, strict=True):
                measured = await send_round(cpu, port, key, items, args.connections)
                total.add(measured)
                line.append(f"{name.split(' (')[0]} {measured.rate:.0f}/s")
            console.print(f"round {number + 1}/{args.rounds}: " + ", ".join(line))
    finally:
        for child in children:
            await child.stop()
    problems = [f"{name} refused: {r}" for name, total in rows for r in total.refused[:3]]
    try:
        counts = await stored_subjects(database_url, workdir / "data" / "agentmail.db")
        problems += verify(counts, expected)
    finally:
        if database_url:
            await drop_pg_database(args.database_url, database_url)
        if args.keep:
            console.print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print_results(rows, args.rounds, problems)
    if args.profile == "cprofile":
        print_cprofile(args.profile_out)
    elif args.profile == "py-spy":
        print_py_spy(args.profile_out)
    return 1 if problems else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="SMTP ingest rate beside a bare aiosmtpd sink.")
    parser.add_argument("--messages", type=int, default=5000, help="measured messages (5000)")
    parser.add_argument("--connections", type=int, default=10, help="SMTP clients (10)")
    parser.add_argument("--size", type=int, default=4096, help="message size in bytes (4096)")
    parser.add_argument(
        "--conversations",
        type=int,
        default=1,
        help="spread the messages over this many conversations (workspaces ws0.. of the "
        "agent; default 1: every message to one conversation)",
    )
    parser.add_argument("--rounds", type=int, default=2, help="gateway/sink alternations (2)")
    parser.add_argument("--warmup", type=int, default=100, help="untimed messages each (100)")
    parser.add_argument(
        "--database-url",
        default="",
        help="postgresql://postgres@127.0.0.1:5432/postgres: a fresh database is created there "
        "and dropped afterwards; default SQLite",
    )
    parser.add_argument(
        "--profile",
        choices=("cprofile", "py-spy"),
        default=None,
        help="run the gateway under cProfile (main thread only) or py-spy (every thread "
        "holding the GIL; py-spy from PATH or PY_SPY)",
    )
    parser.add_argument("--profile-out", type=Path, default=None, help="where the profile goes")
    parser.add_argument(
        "--no-peer",
        dest="peer",
        action="store_false",
        help=f"do not install and run maildev {MAILDEV_VERSION} (bench/_peers.py)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, database)")
    parser.add_argument(
        "--gateway-command",
        default="",
        help="run this instead of .venv/bin/agentmail (a paired run against another tree: "
        "a wrapper that sets PYTHONPATH to it)",
    )
    args = parser.parse_args(argv)
    if min(args.messages, args.connections, args.rounds, args.conversations) < 1 or args.warmup < 0:
        parser.error("--messages, --connections and --rounds must be >= 1, --warmup >= 0")
    if args.profile and args.profile_out is None:
        suffix = "prof" if args.profile == "cprofile" else "txt"
        args.profile_out = Path(tempfile.gettempdir()) / f"agentmail-bench-smtp.{suffix}"
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

"""Sends per second on one PostgreSQL: one replica, three replicas, one process with workers.

    .venv/bin/python bench/cluster.py [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
                                      [--seconds 10 --rounds 2 --connections 24 --workers 2]

Every server is a real `agentmail serve` process on one fresh database, all
started at once, so they are all replicas of each other. `--database-url` names
the PostgreSQL server and the database to connect to while creating that fresh
one (`postgres`, the maintenance database, by default); the fresh database is
dropped at the end, and no other is written:

- **1 replica**: one gateway process;
- **3 replicas**: three gateway processes, the load split evenly over them;
- **N workers**: `agentmail serve --workers N` (one port, a supervisor and N
  worker processes; gateway/workers.py).

Each configuration has its own 30 agents (`--agents`), whose SSE streams are held
by its own processes (spread over them), so a round of one configuration costs
the others nothing but a NOTIFY wake-up. Rounds alternate between the
configurations (`--rounds`), so each sees the same machine. In a round, wrk
(C, closed loop, bench/_wrk.py) posts ~500-byte mails as the human to
`POST /api/v1/me/mail/send` for `--seconds`, with `--connections` connections
split over the configuration's ports (one wrk per port); every mail must then
arrive exactly once on its agent's stream. The delivery latency is from the
mail's commit (its `created_at`, the gateway's clock) to its arrival at the
reader (the same machine's clock).

Attachments are in an S3-compatible object store (`--blobs s3`, the default:
SeaweedFS from the tests, tests/support/seaweedfs.py, on loopback), each server with a
data dir of its own, as replicas on separate machines are; `--blobs files` keeps them
in each server's data dir (then only one server may take attachments: use it to see
the object store's cost). After each configuration's wrk round comes its SMTP round
(bench/_cluster_smtp.py): `--smtp-connections` clients spread over its SMTP ports send
mails with a `--attachment-bytes` attachment (new bytes each: a new object each).

Printed: sends/s, wrk's latency p50/p99, delivery p50/p99, CPU ms per send
(the configuration's processes and every PostgreSQL backend of the database),
errors, and the ratios 3 replicas / 1 (goal on 2 cores: >= 1.6) and N workers / 1;
then the SMTP rounds: mails/s, p50/p99 to the `250`, CPU ms a mail (the processes,
PostgreSQL and the object store) and the store's part, and their ratios.
Exit status 1 when a mail was lost or duplicated, or a request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the object store of the tests: tests/support/seaweedfs.py

from _children import (  # noqa: E402
    Child,
    _pg_admin,
    drop_pg_database,
    free_port,
    fresh_database,
    gateway_env,
    spawn,
)
from _cli import reproduce  # noqa: E402
from _cluster_clients import Arrivals, Streams, setup_accounts  # noqa: E402
from _cluster_smtp import SmtpRun, smtp_round  # noqa: E402
from _load import body_text, percentile  # noqa: E402
from _report import console  # noqa: E402
from _rest_wrk import check_wrk_deliveries  # noqa: E402
from _wrk import ServerCpu, WrkRun, load_average, lua_script, run_wrk, summed, wrk_available  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from tests.support.seaweedfs import SeaweedFS  # noqa: E402

ADMIN_PASSWORD = "bench-admin-password"
SEND = "/api/v1/me/mail/send"


@dataclass
class Config:
    name: str
    prefix: str  # its agents: <prefix>00, <prefix>01, …
    servers: list[Child]  # one per port (the workers' supervisor is one)
    smtp_ports: list[int]
    arrivals: Arrivals = field(default_factory=Arrivals)
    runs: list[WrkRun] = field(default_factory=list)
    database_cpu: float = 0.0  # seconds the PostgreSQL backends spent in its rounds
    smtp: SmtpRun = field(default_factory=SmtpRun)
    smtp_cpu: float = 0.0  # its processes, PostgreSQL and the object store, SMTP rounds
    smtp_store_cpu: float = 0.0  # the object store's part of it

    def total(self) -> WrkRun:
        return summed(self.runs)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--database-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="the PostgreSQL server (and the database to connect to) on which a fresh "
        "database is created for the run and dropped after it",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="length of one wrk round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each configuration")
    parser.add_argument("--connections", type=int, default=24, help="wrk connections in all")
    parser.add_argument(
        "--agents", type=int, default=30, help="agents (SSE streams) per configuration"
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="N of the `--workers N` configuration"
    )
    parser.add_argument("--body-bytes", type=int, default=500)
    parser.add_argument(
        "--synchronous-commit",
        choices=["on", "off"],
        default="on",
        help="the fresh database's synchronous_commit: off shows what waiting for the WAL "
        "flush (under the events lock) costs; never for real data",
    )
    parser.add_argument(
        "--blobs", choices=["s3", "files"], default="s3",
        help="where attachments are kept: SeaweedFS's S3 (default) or each data dir",
    )  # fmt: skip
    parser.add_argument("--smtp-connections", type=int, default=8, help="SMTP clients in all")
    parser.add_argument("--attachment-bytes", type=int, default=16384)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    return parser.parse_args(argv)


def _body(prefix: str, size: int, round_id: int) -> str:
    subject = f"wrk r{round_id}.%d %d to %d"
    return (
        '{"to":"'
        + prefix
        + '%02d@ws","subject":"'
        + subject
        + '","body":"'
        + body_text(size)
        + '"}'
    )


def _store_env(store: SeaweedFS | None) -> dict[str, str]:
    if store is None:
        return {}
    return {f"AGENTMAIL_{name.upper()}": str(value) for name, value in store.settings().items()}


async def _start(
    workdir: Path, url: str, args: argparse.Namespace, store: SeaweedFS | None
) -> list[Config]:
    env = gateway_env(ADMIN_PASSWORD, url) | _store_env(store)
    # Replicas with data dirs of their own share the key the database's secrets are
    # sealed under (docs/deploy.md, "Secrets").
    env["AGENTMAIL_SECRET_KEY"] = "the cluster benchmark's secret key, 32+ characters"
    # Seven processes on one server: each keeps its pool small (max_connections is 100).
    env["AGENTMAIL_DATABASE_CONNECTIONS"] = "10"
    env["AGENTMAIL_LOG_LEVEL"] = "warning"
    agentmail = str(Path(sys.executable).parent / "agentmail")

    smtp_ports: dict[str, int] = {}

    def gateway(name: str, *extra: str) -> Child:
        port, smtp_ports[name] = free_port(), free_port()
        argv = [agentmail, "serve", "--http-port", str(port), "--smtp-port",
                str(smtp_ports[name]), "--data-dir", str(workdir / name), *extra]  # fmt: skip
        return spawn(name, argv, env, workdir / f"{name}.log", port)

    # The first one alone: it migrates the new database; the others find it done.
    started: list[Child] = []
    try:
        single = gateway("single")
        started.append(single)
        await single.wait_healthy("/readyz", timeout=120)
        replicas = [gateway(f"replica{n}") for n in (1, 2, 3)]
        workers = gateway("workers", "--workers", str(args.workers))
        started += [*replicas, workers]
        for child in (*replicas, workers):
            await child.wait_healthy("/readyz", timeout=120)
    except BaseException:  # one failed to start: none is left running
        for child in started:
            await child.stop()
        raise
    return [
        Config("1 replica", "one", [single], [smtp_ports["single"]]),
        Config("3 replicas", "three", replicas, [smtp_ports[f"replica{n}"] for n in (1, 2, 3)]),
        Config(f"{args.workers} workers", "work", [workers], [smtp_ports["workers"]]),
    ]


async def _smtp_round(
    config: Config, args: argparse.Namespace, key: str, tag: str, url: str, store: int | None
) -> None:
    """The configuration's SMTP round, its CPU: its processes, PostgreSQL, the store."""
    meters = [ServerCpu(server) for server in config.servers]
    meters.append(ServerCpu(config.servers[0], url))  # the database's backends
    store_meter = ServerCpu(store) if store is not None else None
    before = [await meter.sample() for meter in meters]
    store_before = await store_meter.sample() if store_meter else {}
    run = await smtp_round(config.smtp_ports, key, seconds=args.seconds,
                           connections=args.smtp_connections,
                           attachment_bytes=args.attachment_bytes, tag=tag)  # fmt: skip
    after = [await meter.sample() for meter in meters]
    store_cpu = ServerCpu.spent(store_before, await store_meter.sample()) if store_meter else 0.0
    # The database meter counts the first server's process too: counted once.
    spent = sum(ServerCpu.spent(b, a) for b, a in zip(before, after, strict=True))
    own = ServerCpu.spent(before[0], after[0])
    config.smtp.add(run)
    config.smtp_cpu += spent - own + store_cpu
    config.smtp_store_cpu += store_cpu


async def _round(
    config: Config, args: argparse.Namespace, key: str, round_id: int, workdir: Path, url: str
) -> WrkRun:
    headers = {"Authorization": f"Bearer {key}"}
    scripts = []
    for n in range(len(config.servers)):  # subjects unique per wrk: its own round number
        script = workdir / f"{config.prefix}-{round_id}-{n}.lua"
        body = _body(config.prefix, args.body_bytes, round_id * 10 + n)
        script.write_text(lua_script(SEND, headers, body, args.agents))
        scripts.append(script)
    share = max(1, args.connections // len(config.servers))
    database = ServerCpu(config.servers[0], url)  # its backends, apart from the gateways
    before = {pid: cpu for pid, cpu in (await database.sample()).items() if pid != database.pid}
    runs = await asyncio.gather(
        *(
            run_wrk(server.base_url + SEND, scripts[n], ServerCpu(server),
                    seconds=args.seconds, connections=share, threads=1)
            for n, server in enumerate(config.servers)
        )
    )  # fmt: skip
    after = {pid: cpu for pid, cpu in (await database.sample()).items() if pid != database.pid}
    config.database_cpu += ServerCpu.spent(before, after)
    merged = summed(list(runs), side_by_side=True)
    merged.load_average = load_average()
    return merged


def _print(configs: list[Config], args: argparse.Namespace, database: str) -> None:
    console.print(f"\n[bold]bench/cluster.py[/] on {database}; {os.cpu_count()} CPUs")
    head = f"{'configuration':<14}{'sends/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'deliv p50':>10}"
    console.print(
        f"{head}{'deliv p99':>10}{'CPU ms/send':>12}{'of it PG':>9}{'errors':>7}  load average"
    )
    for config in configs:
        total = config.total()
        database = 1000 * config.database_cpu / total.requests if total.requests else math.nan
        cpu = total.cpu_ms_per_request + database
        latencies = config.arrivals.latencies
        console.print(
            f"{config.name:<14}{total.rate:>9.0f}{total.p50_ms:>8.1f}{total.p99_ms:>8.1f}"
            f"{percentile(latencies, 50) * 1000:>10.1f}{percentile(latencies, 99) * 1000:>10.1f}"
            f"{cpu:>12.2f}{database:>9.2f}{total.errors:>7}  {total.load_average}"
        )
    one = configs[0].total().rate
    if one:
        three = configs[1].total().rate / one
        mark = "met" if three >= 1.6 else "not met"
        console.print(
            f"3 replicas / 1 replica: [bold]{three:.2f}x[/] (goal on 2 cores >= 1.6x: {mark})"
        )
        console.print(
            f"{configs[2].name} / 1 replica: [bold]{configs[2].total().rate / one:.2f}x[/]"
        )
    console.print(
        "CPU ms/send: the configuration's processes and every PostgreSQL backend of the"
        " database; 'of it PG': the backends alone"
    )
    _print_smtp(configs, args)
    console.print(f"reproduce: {reproduce('bench/cluster.py', args, parse_args([]))}")


def _print_smtp(configs: list[Config], args: argparse.Namespace) -> None:
    store = "the object store" if args.blobs == "s3" else "files"
    console.print(
        f"\nSMTP with a {args.attachment_bytes}-byte attachment ({store}),"
        f" {args.smtp_connections} clients"
    )
    console.print(
        f"{'configuration':<14}{'mails/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'CPU ms/mail':>12}"
        f"{'of it store':>12}{'errors':>7}{'client s':>9}"
    )
    for config in configs:
        run, sent = config.smtp, max(1, config.smtp.sent)
        console.print(
            f"{config.name:<14}{run.rate:>9.0f}{percentile(run.latencies, 50) * 1000:>8.1f}"
            f"{percentile(run.latencies, 99) * 1000:>8.1f}{1000 * config.smtp_cpu / sent:>12.2f}"
            f"{1000 * config.smtp_store_cpu / sent:>12.2f}{len(run.errors):>7}"
            f"{run.client_cpu:>9.2f}"
        )
    one = configs[0].smtp.rate
    if one:
        console.print(f"SMTP 3 replicas / 1 replica: [bold]{configs[1].smtp.rate / one:.2f}x[/]")


async def _set_synchronous_commit_off(server_url: str, url: str) -> None:
    connection = await _pg_admin(server_url)
    try:
        await connection.execute(
            f'ALTER DATABASE "{make_url(url).database}" SET synchronous_commit = off'
        )
    finally:
        await connection.close()


async def main(args: argparse.Namespace) -> int:
    if wrk_available() is None:
        console.print("wrk is not installed (apt-get install wrk)")
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-cluster-"))
    url, database = await fresh_database(args.database_url, "")
    if args.synchronous_commit == "off":
        await _set_synchronous_commit_off(args.database_url, url)
        database += ", synchronous_commit off"
    configs: list[Config] = []
    streams = Streams()
    problems: list[str] = []
    store = SeaweedFS() if args.blobs == "s3" else None
    try:
        if store is not None:
            await asyncio.to_thread(store.start)
            database += f"; attachments in SeaweedFS ({store.endpoint})"
        configs = await _start(workdir, url, args, store)
        key, keys = await setup_accounts(configs[0].servers[0].base_url, ADMIN_PASSWORD,
                                         [c.prefix for c in configs], args.agents)  # fmt: skip
        for config in configs:
            await streams.open(config.servers, config.prefix, keys[config.prefix], config.arrivals)
        for number in range(1, args.rounds + 1):
            line = []
            for index, config in enumerate(configs):
                run = await _round(config, args, key, index * 100 + number, workdir, url)
                config.runs.append(run)
                weed = store.pid if store is not None else None
                await _smtp_round(config, args, key, f"{config.prefix}{number}", url, weed)
                line.append(f"{config.name} {run.rate:.0f}/s, SMTP {config.smtp.rate:.0f}/s")
            console.print(f"round {number}/{args.rounds}: " + ", ".join(line))
        for config in configs:
            found = await check_wrk_deliveries(
                config.arrivals, config.total().requests, args.agents, 60
            )
            problems += [f"{config.name}: {p}" for p in found]
            if config.total().errors:
                problems.append(f"{config.name}: {config.total().errors} requests failed")
            if config.smtp.errors:
                problems.append(f"{config.name}: SMTP {config.smtp.errors[0]}")
        _print(configs, args, database)
    finally:
        await streams.close()
        for config in configs:
            for server in config.servers:
                await server.stop()
        with contextlib.suppress(Exception):
            await drop_pg_database(args.database_url, url)
        if store is not None:
            await asyncio.to_thread(store.close)
        if args.keep:
            console.print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    for problem in problems:
        console.print(f"[red]FAIL[/] {problem}")
    console.print("[green]OK[/] every mail arrived once, on its own stream" if not problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))

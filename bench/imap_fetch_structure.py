"""ENVELOPE and BODYSTRUCTURE of real-world mail: the gateway beside Dovecot in one run.

    .venv/bin/python bench/imap_fetch_structure.py [--messages 1000 --rounds 5 --idle-mails 60]
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres] [--mbsync-rounds 3]

1. Generates the corpus (tests/support/real_world_corpus.py, a fixed seed: plain, 8-bit,
   quoted-printable, HTML + text, attachments up to 1.5 MB, inline images, forwarded
   message/rfc822, Chinese subjects as encoded-words and raw UTF-8, threads; about
   21 MB for 1,000), imports it into a fresh gateway with `agentmail import` while the
   gateway runs (the import path, the one write path), and places the same bytes in a
   private Dovecot 2.3's Maildir (tests/support/dovecot.py).
2. On one logged-in connection to each, alternating: `FETCH 1:* (FLAGS ENVELOPE
   BODYSTRUCTURE)` and `FETCH 1:* (FLAGS ENVELOPE)`, each first one (nothing cached:
   the gateway's process never read these mails, Dovecot never indexed them) apart,
   then `--rounds` each; the time to the tagged OK and the server's CPU over it.
3. Full mbsync pulls of INBOX from each, alternating: the server's CPU per message
   (its process tree; the gateway's PostgreSQL backends too), median of the rounds.
4. IDLE push (a REST send → `EXISTS` at an idling client) p50/p99, first alone, then
   while another connection runs `FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)` over and
   over; `/readyz` is asked every 50 ms meanwhile, its slowest answer printed.

Goals (the issue): FETCH (FLAGS ENVELOPE BODYSTRUCTURE) at most 5x Dovecot's time; mbsync
at most 3x Dovecot's server CPU per message; IDLE p99 < 100 ms during the full FETCH.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys

from _cli import add_database_url, reproduce
from _db import console
from _imap_clients import Server, idle_latencies, mbsync_pull
from _imap_fill import PASSWORD, READER, agent_client, gateway_run, send_one, setup_accounts
from _load import percentile
from _structure_clients import (
    RawClient,
    RunTime,
    Timed,
    during,
    fetch_loop,
    fetched,
    fill_dovecot,
    import_corpus,
    probe_loop,
    write_corpus,
)
from _wrk import ServerCpu, load_average

from tests.support.dovecot import running_dovecot
from tests.support.real_world_corpus import real_world_corpus

FULL, LIST = "FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)", "FETCH 1:* (FLAGS ENVELOPE)"
GOAL_FETCH, GOAL_MBSYNC_CPU, GOAL_IDLE_P99 = 5.0, 3.0, 0.100
DOMAIN = "agentmail.localhost"


def mark(met: bool) -> str:
    return "[green]met[/]" if met else "[red]not met[/]"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f}"


async def timed(client: RawClient, cpu: RunTime, command: str, expected: int) -> Timed:
    before = await cpu.sample()
    seconds, response = await client.timed(command)
    spent = ServerCpu.spent(before, await cpu.sample())
    if fetched(response) != expected:
        raise RuntimeError(f"{command} returned {fetched(response)} messages, not {expected}")
    return Timed(seconds, spent)


async def fetches(
    clients: dict[str, RawClient], cpus: dict[str, RunTime], args: argparse.Namespace
) -> dict[tuple[str, str], list[Timed]]:
    """Per (server, command): the first run, then `--rounds` runs, servers alternating."""
    runs: dict[tuple[str, str], list[Timed]] = {}
    for number in range(args.rounds + 1):
        for command in (FULL, LIST):
            for name, client in clients.items():
                run = await timed(client, cpus[name], command, args.messages)
                runs.setdefault((name, command), []).append(run)
        if number:
            gw, dove = (runs[(name, FULL)][-1].seconds for name in clients)
            console.print(
                f"round {number}/{args.rounds}: full FETCH {ms(gw)} ms, Dovecot {ms(dove)} ms"
            )
    return runs


def fetch_table(runs: dict[tuple[str, str], list[Timed]], names: list[str]) -> bool:
    console.print()
    console.print(
        f"[bold]{'':9} {'command':42} {'first ms':>9} {'median ms':>9} {'CPU ms':>9}[/]"
        "   (first: nothing cached; median of the rounds after it; CPU: the server's, median)"
    )
    medians: dict[tuple[str, str], float] = {}
    for command in (FULL, LIST):
        for name in names:
            first, *rest = runs[(name, command)]
            medians[(name, command)] = statistics.median(r.seconds for r in rest)
            cpu = statistics.median(r.cpu for r in rest)
            console.print(
                f"{name:9} {command:42} {ms(first.seconds)} "
                f"{ms(medians[(name, command)])} {ms(cpu)}"
            )
        gw, dove = names
        first_ratio = runs[(gw, command)][0].seconds / runs[(dove, command)][0].seconds
        ratio = medians[(gw, command)] / medians[(dove, command)]
        goal = (
            f"   goal <= {GOAL_FETCH:.0f}x: {mark(ratio <= GOAL_FETCH)}" if command == FULL else ""
        )
        console.print(f"{'ratio':9} {'':42} {first_ratio:8.1f}x {ratio:8.1f}x{goal}")
    return medians[(names[0], FULL)] / medians[(names[1], FULL)] <= GOAL_FETCH


async def mbsync(
    servers: dict[str, Server], cpus: dict[str, ServerCpu], messages: int, rounds: int
) -> bool:
    """Full pulls into empty Maildirs, servers alternating; the median of the rounds."""
    console.print()
    console.print(f"[bold]mbsync full pull of INBOX[/] ({messages} messages, median of {rounds})")
    walls: dict[str, list[float]] = {name: [] for name in servers}
    cpu_ms: dict[str, list[float]] = {name: [] for name in servers}
    for _ in range(rounds):
        for name, server in servers.items():
            before = await cpus[name].sample()
            seconds, files = await asyncio.to_thread(mbsync_pull, server)
            cpu = ServerCpu.spent(before, await cpus[name].sample())
            if files != messages:
                raise RuntimeError(f"mbsync from {name} wrote {files} messages, not {messages}")
            walls[name].append(seconds)
            cpu_ms[name].append(1000 * cpu / messages)
    per_message = {name: statistics.median(values) for name, values in cpu_ms.items()}
    for name in servers:
        runs = ", ".join(f"{value:.3f}" for value in cpu_ms[name])
        console.print(
            f"{name:9} wall {ms(statistics.median(walls[name]))} ms   server CPU "
            f"{per_message[name]:.3f} ms per message (runs: {runs})"
        )
    gw, dove = per_message.values()
    ratio = gw / max(dove, 1e-9)
    console.print(
        f"ratio     CPU per message {ratio:.1f}x   "
        f"(goal <= {GOAL_MBSYNC_CPU:.0f}x: {mark(ratio <= GOAL_MBSYNC_CPU)})"
    )
    return ratio <= GOAL_MBSYNC_CPU


async def idle(gw: Server, base_url: str, key: str, count: int) -> bool:
    async with agent_client(base_url, key) as agent:

        async def send(number: int) -> None:
            await send_one(agent, f"pushed {number}")

        alone = await idle_latencies(gw, send, count)
        loads = [lambda stop: fetch_loop(gw, FULL, stop), lambda stop: probe_loop(base_url, stop)]
        busy, (loops, probes) = await during(loads, idle_latencies(gw, send, count))
    assert isinstance(busy, list) and isinstance(probes, list)
    console.print()
    console.print(f"[bold]IDLE push[/] (REST send → EXISTS at an idling client, {count} mails)")
    for label, latencies in (("alone", alone), ("during FETCH", busy)):
        console.print(
            f"{label:13} p50 {ms(percentile(latencies, 50))} ms   "
            f"p99 {ms(percentile(latencies, 99))} ms   max {ms(max(latencies))} ms"
        )
    p99 = percentile(busy, 99)
    console.print(
        f"during FETCH: {loops} full FETCHes ran; /readyz slowest {ms(max(probes))} ms "
        f"of {len(probes)}; goal p99 < {GOAL_IDLE_P99 * 1000:.0f} ms: {mark(p99 < GOAL_IDLE_P99)}"
    )
    return p99 < GOAL_IDLE_P99


async def main(args: argparse.Namespace) -> int:
    line = reproduce("bench/imap_fetch_structure.py", args, parse_args([]))
    title = f"[bold]imap_fetch_structure[/]  {line}"
    messages = real_world_corpus(f"{READER}@{DOMAIN}", args.messages)
    size = sum(len(item.raw) for item in messages)
    async with gateway_run(
        args, title, "gateway 1 process, Dovecot its own", keep=args.keep
    ) as run:
        key = await setup_accounts(run.base_url)
        corpus = write_corpus(messages, run.workdir / "corpus")
        seconds = await import_corpus(corpus, run.workdir / "data", run.database_url)
        console.print(
            f"corpus       {len(messages)} messages, {size / 1e6:.1f} MB, "
            f"imported in {seconds:.1f} s"
        )
        gw = Server("gateway", run.imap_port, READER, PASSWORD)
        async with running_dovecot(run.workdir, READER, PASSWORD, plaintext=True) as dovecot:
            await asyncio.to_thread(fill_dovecot, dovecot, messages)
            dove = Server("Dovecot", dovecot.port, READER, PASSWORD)
            master = int((dovecot.root / "run" / "master.pid").read_text())
            cpus = {"gateway": ServerCpu(run.child, run.database_url), "Dovecot": ServerCpu(master)}
            clients = {"gateway": await RawClient.open(gw), "Dovecot": await RawClient.open(dove)}
            run_times = {name: RunTime(cpu) for name, cpu in cpus.items()}
            runs = await fetches(clients, run_times, args)
            _, sizes = await clients["gateway"].timed("FETCH 1:* (RFC822.SIZE)")
            if sum(int(n) for n in re.findall(rb"RFC822\.SIZE (\d+)", sizes)) != size:
                raise RuntimeError("the gateway serves other bytes than the corpus")
            for client in clients.values():
                await client.close()
            met = [fetch_table(runs, list(clients))]
            if args.mbsync_rounds:
                servers = {"gateway": gw, "Dovecot": dove}
                met.append(await mbsync(servers, cpus, args.messages, args.mbsync_rounds))
        if args.idle_mails:
            met.append(await idle(gw, run.base_url, key, args.idle_mails))
    console.print()
    console.print(f"load {load_average()}; goals met: {sum(met)} of {len(met)}")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="FETCH ENVELOPE/BODYSTRUCTURE beside Dovecot.")
    parser.add_argument("--messages", type=int, default=1000, help="corpus size (1000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds after the first (5)")
    parser.add_argument("--idle-mails", type=int, default=60, help="IDLE pushes (60; 0 skips)")
    parser.add_argument(
        "--mbsync-rounds", type=int, default=3, help="mbsync pulls of each (3; 0 skips)"
    )
    add_database_url(parser)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args(argv)
    if min(args.messages, args.rounds) < 1 or min(args.idle_mails, args.mbsync_rounds) < 0:
        parser.error("--messages and --rounds must be >= 1, the others >= 0")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

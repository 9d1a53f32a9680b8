"""imaptest, Dovecot's IMAP compliance and stress tool, against the gateway and Dovecot 2.3.

    .venv/bin/python bench/imaptest_compare.py [--only fetch,list] [--error-lines 8] [--keep]
    .venv/bin/python bench/imaptest_compare.py --stress [--clients 5 --seconds 30 --messages 100]
                                               [--no-compliance] [--mix 'imaptest default']
                                               [--py-spy PREFIX]

1. Starts the gateway (`agentmail serve`, its own process, a fresh SQLite data dir or
   `--database-url`, free ports) with the human alice made over the admin API, and a
   private Dovecot (plain IMAP on loopback, tests/support/dovecot.py) with alice too.
2. Compliance: each of imaptest's scripted test groups (a file of `--tests`; its `.mbox`
   beside it) runs alone against each server, Dovecot first:
   `imaptest host=127.0.0.1 port=… user=alice pass=… test=<file> rawlog`. Each group
   works in a mailbox named `imaptest` that it deletes, creates and fills itself. A row
   per group as it finishes: pass (commands run), FAIL failed/run, or skip (a capability
   it needs is not advertised: listed); the gateway's first failure in a word. Then, for
   each group that passes on Dovecot and fails on the gateway, imaptest's first error
   lines. With `--keep`, every connection's rawlog stays in the kept temp dir
   (`<server>/<group>/rawlog.N`).
3. `--stress`: `--messages` mails are sent to alice over REST and the same bytes put into
   Dovecot's INBOX; then imaptest's stress mode, `clients=5 secs=30` (`--clients`,
   `--seconds`) with `logout=0` (sessions stay logged in), runs against each server in
   turn, in two mixes: reading, STORE and SEARCH first (`- fetch=100 fetch2=100,30
   store=50 search=50`: nothing leaves the INBOX), then imaptest's default mix (LIST,
   STATUS, SELECT, FETCH, FETCH2, STORE, STORE \\Deleted, EXPUNGE, APPEND from a
   generated mbox). Prints per command commands/s and mean milliseconds (imaptest
   times each command from sending to its tagged reply, and gives means only), the
   errors imaptest reported by kind, the server's CPU ms per command, and the ratios.
   `--mix` runs the named mixes alone; `--py-spy PREFIX` records the gateway's stress
   runs with py-spy (the thread holding the GIL, raw stacks) into PREFIX.<mix number>.

Nothing here is part of `make test` or CI; `make imaptest` runs it (IMAPTEST_ARGS).
imaptest is built from source: docs/testing.md, "imaptest". Exit status 2 when imaptest,
its tests or Dovecot are missing; else 0, whatever the servers answered.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from _children import start_py_spy
from _cli import add_database_url, reproduce
from _db import console
from _imap_fill import PASSWORD, READER, copy_to_dovecot, fill_over_rest, gateway_run
from _imap_fill import setup_accounts as accounts
from _imaptest import (
    DEFAULT_TESTS,
    MISSING,
    Group,
    GroupResult,
    StressRun,
    Target,
    capabilities,
    find_imaptest,
    run_group,
    run_stress,
    test_groups,
    write_append_mbox,
)
from _wrk import ServerCpu, load_average

from tests.support.dovecot import DOVECOT, Dovecot, running_dovecot

DOMAIN = "agentmail.localhost"
# imaptest's short names of its states (its docs/states.md), as its output heads them.
STATES = {
    "Logi": "LOGIN",
    "List": "LIST",
    "Stat": "STATUS",
    "Sele": "SELECT",
    "UIDF": "UID FETCH",
    "Fetc": "FETCH",
    "Fet2": "FETCH BODY[]",
    "Sear": "SEARCH",
    "Sort": "SORT",
    "Thre": "THREAD",
    "Copy": "COPY",
    "Stor": "STORE",
    "Dele": "STORE Deleted",
    "Expu": "EXPUNGE",
    "Appe": "APPEND",
    "Noop": "NOOP",
    "Chec": "CHECK",
    "Logo": "LOGOUT",
}
MIXES = {
    "read, STORE, SEARCH": ["-", "fetch=100", "fetch2=100,30", "store=50", "search=50"],
    "imaptest default": [],
}


def say(text: str = "") -> None:
    """Plain text: imaptest's output is full of `[…]`, which rich would read as markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


# ---------------------------------------------------------------- compliance


async def compliance(
    imaptest: Path,
    groups: list[Group],
    targets: list[Target],
    workdir: Path,
    args: argparse.Namespace,
) -> None:
    dovecot, gateway = targets
    say(f"\nimaptest's scripted tests ({args.tests}), one group at a time, Dovecot then gateway")
    header = f"{'group':32}{'Dovecot':>12}{'gateway':>12}   gateway's first failure"
    say(header)
    say("-" * len(header))
    results: list[tuple[Group, GroupResult, GroupResult]] = []
    for group in groups:
        theirs = await run_group(imaptest, group, dovecot, workdir, args.group_timeout)
        ours = await run_group(imaptest, group, gateway, workdir, args.group_timeout)
        results.append((group, theirs, ours))
        cause = ours.cause() if ours.verdict != "pass" else ""
        say(f"{group.name:32}{theirs.cell():>12}{ours.cell():>12}   {cause}")
    report_compliance(results, args)


def report_compliance(
    results: list[tuple[Group, GroupResult, GroupResult]], args: argparse.Namespace
) -> None:
    def tally(server: list[GroupResult]) -> str:
        verdicts = [result.verdict for result in server]
        return ", ".join(f"{verdicts.count(v)} {v}" for v in ("pass", "FAIL", "skip", "error"))

    dovecot, gateway = tally([r[1] for r in results]), tally([r[2] for r in results])
    say()
    say(f"{len(results)} groups.  Dovecot: {dovecot}.  gateway: {gateway}.")
    regressions = [(g, o) for g, t, o in results if t.verdict == "pass" and o.verdict != "pass"]
    causes: dict[str, list[str]] = {}
    for group, ours in regressions:
        causes.setdefault(ours.cause().replace(" (setup)", ""), []).append(group.name)
    say(f"Pass on Dovecot, not on the gateway: {len(regressions)}")
    for cause, names in sorted(causes.items(), key=lambda item: -len(item[1])):
        say(f"  {len(names):3}  {cause:36}  {' '.join(names)}")
    broken = [g.name for g, t, _ in results if t.verdict in ("FAIL", "error")]
    if broken:
        say(f"Fail on Dovecot itself (the oracle; read before the gateway's): {' '.join(broken)}")
    failing = [(g, o) for g, o in regressions if o.verdict in ("FAIL", "error")]
    if not failing:
        return
    say()
    say(f"imaptest's first {args.error_lines} error lines of each group that passes on Dovecot")
    for group, ours in failing:
        rawlogs = f"  (rawlogs: {ours.rawlogs})" if args.keep else ""
        say(f"\n== {group.name}{rawlogs}")
        for line in ours.first_lines(args.error_lines):
            say(f"   {line}")


# ---------------------------------------------------------------- stress


async def stress(
    imaptest: Path,
    targets: list[Target],
    cpus: dict[str, ServerCpu],
    workdir: Path,
    args: argparse.Namespace,
) -> None:
    mbox = workdir / "append.mbox"
    write_append_mbox(mbox, 100, f"{READER}@{DOMAIN}")
    common = [f"clients={args.clients}", f"msgs={args.messages}", f"mbox={mbox}", "seed=1"]
    for number, (mix, states) in enumerate(MIXES.items()):
        if args.mix and mix not in args.mix:
            continue
        tail = [*common, *states, "logout=0"]
        say(f"\nstress, mix {mix!r}: imaptest {' '.join(a for a in tail if a != f'mbox={mbox}')}")
        runs: dict[str, StressRun] = {}
        for target in targets:
            say(f"  {target.name}: {args.seconds:g} s, load {load_average()}")

            def progress(line: str, name: str = target.name) -> None:
                say(f"    {name:8}{line}")

            before = await cpus[target.name].sample()
            spy = None
            if args.py_spy and target.name == "gateway":
                output = Path(f"{args.py_spy}.{number}")
                spy = await start_py_spy(cpus[target.name].pid, output, args.seconds)
            run = await run_stress(imaptest, target, tail, workdir, args.seconds, progress)
            if spy is not None:
                await spy.wait()
            run.cpu_seconds = ServerCpu.spent(before, await cpus[target.name].sample())
            run.load = load_average()
            runs[target.name] = run
        report_stress(runs["gateway"], runs["Dovecot"])


def _ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}" if theirs else "-"


def report_stress(ours: StressRun, theirs: StressRun) -> None:
    say()
    say("cmd/s: commands answered OK per second; ms/cmd: mean, sending to tagged reply, any reply")
    columns = f"{'gateway cmd/s':>14}{'ms/cmd':>9}{'Dovecot cmd/s':>15}{'ms/cmd':>9}"
    say(f"{'':14}{columns}{'cmd/s ratio':>13}")
    states = [
        s for s in theirs.states if ours.timed[s] + theirs.timed[s] + ours.ok[s] + theirs.ok[s]
    ]
    for state in [*states, None]:
        a, b = ours.rate(state), theirs.rate(state)
        name = STATES.get(state, state) if state else "all"
        say(
            f"{name:14}{a:>14.1f}{ours.latency(state):>9.2f}"
            f"{b:>15.1f}{theirs.latency(state):>9.2f}{_ratio(a, b):>13}"
        )
    say(f"{'errors':14}{sum(ours.errors.values()):>14}{'':9}{sum(theirs.errors.values()):>15}")
    cpu = f"{ours.cpu_ms():>14.2f}{'':9}{theirs.cpu_ms():>15.2f}{'':9}"
    say(f"{'CPU ms/cmd':14}{cpu}{_ratio(ours.cpu_ms(), theirs.cpu_ms()):>13}")
    say(f"{'seconds':14}{ours.seconds:>14}{'':9}{theirs.seconds:>15}")
    say(f"{'load after':14}{ours.load:>14}{'':9}{theirs.load:>15}")
    for name, run in (("gateway", ours), ("Dovecot", theirs)):
        if run.exit_code not in (0, 1):
            say(f"  {name}: imaptest exited {run.exit_code}")
        for kind, count in run.errors.most_common(4):
            say(f"  {name} {count:6}x  {kind}")


# ---------------------------------------------------------------- main


async def main(args: argparse.Namespace) -> int:
    imaptest = find_imaptest(args.imaptest)
    if imaptest is None:
        where = f" at {args.imaptest}" if args.imaptest else " (IMAPTEST, --imaptest, PATH)"
        say(MISSING.format(where=where))
        return 2
    if not (args.tests / "default.mbox").is_file():
        say(f"imaptest's scripted tests not found in {args.tests} (no default.mbox).")
        say(MISSING.format(where=""))
        return 2
    if not DOVECOT.exists():
        say(f"{DOVECOT} not found: `make services` (scripts/ensure-services.sh) installs it.")
        return 2
    only = frozenset(filter(None, args.only.split(",")))
    groups = test_groups(args.tests, only)
    unknown = only - {g.name for g in groups}
    if unknown:
        say(f"no such test group in {args.tests}: {' '.join(sorted(unknown))}")
        return 2
    title = f"imaptest_compare  {reproduce('bench/imaptest_compare.py', args, parse_args([]))}"
    machine = "gateway 1 process, Dovecot its own"
    async with gateway_run(args, title, machine, keep=args.keep) as run:
        say(f"imaptest     {imaptest}")
        key = await accounts(run.base_url)
        async with running_dovecot(run.workdir, READER, PASSWORD, plaintext=True) as dovecot:
            targets = [
                await _target("Dovecot", dovecot.port),
                await _target("gateway", run.imap_port),
            ]
            if not args.no_compliance:
                await compliance(imaptest, groups, targets, run.workdir / "compliance", args)
            if args.stress:
                say(f"\n{args.messages} mails to alice over REST, the same bytes into Dovecot")
                await fill_over_rest(run.base_url, key, args.messages)
                copied = await copy_to_dovecot(run.imap_port, dovecot)
                assert copied == args.messages, copied
                cpus = {"gateway": ServerCpu(run.child, run.database_url)}
                cpus["Dovecot"] = ServerCpu(_master(dovecot))
                await stress(imaptest, targets, cpus, run.workdir, args)
    return 0


async def _target(name: str, port: int) -> Target:
    caps = await asyncio.to_thread(capabilities, port, READER, PASSWORD)
    return Target(name, port, READER, PASSWORD, caps)


def _master(dovecot: Dovecot) -> int:
    return int((dovecot.root / "run" / "master.pid").read_text())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="imaptest against the gateway and Dovecot 2.3.")
    parser.add_argument("--imaptest", default="", help="the imaptest binary (IMAPTEST, PATH)")
    parser.add_argument("--tests", type=Path, default=DEFAULT_TESTS, help=f"({DEFAULT_TESTS})")
    parser.add_argument("--only", default="", help="comma-separated test groups (file names)")
    parser.add_argument("--error-lines", type=int, default=8, help="per failing group (8)")
    parser.add_argument("--group-timeout", type=float, default=120.0, help="seconds (120)")
    parser.add_argument("--no-compliance", action="store_true", help="the stress runs alone")
    parser.add_argument("--stress", action="store_true", help="imaptest's stress mode too")
    parser.add_argument("--clients", type=int, default=5, help="stress connections (5)")
    parser.add_argument("--seconds", type=float, default=30.0, help="a stress run (30)")
    parser.add_argument("--messages", type=int, default=100, help="INBOX for the stress (100)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (rawlogs)")
    parser.add_argument(
        "--mix",
        action="append",
        choices=list(MIXES),
        help="a stress mix to run (repeatable; all when omitted)",
    )
    parser.add_argument(
        "--py-spy",
        metavar="PREFIX",
        default="",
        help="profile the gateway's stress runs with py-spy into PREFIX.<mix> (raw stacks)",
    )
    add_database_url(parser)
    args = parser.parse_args(argv)
    if min(args.clients, args.messages, args.error_lines) < 1 or args.seconds < 1:
        parser.error("--clients, --messages, --error-lines >= 1 and --seconds >= 1")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

"""imaptest (Dovecot's IMAP compliance and stress tool) as `imaptest_compare.py` runs it:
where it is, one scripted test group against one server, one stress run, and what its
output says.

imaptest is not packaged by Debian; docs/testing.md ("imaptest") says how to build it
against Debian's libdovecot and where it goes (`/usr/local/bin/imaptest`, its scripted
tests in `/usr/local/share/imaptest/tests`). Its summary line counts a group skipped for
a missing capability as neither failed nor skipped (the build's bug), so a group that ran
no command and failed none is read here as skipped, and the capabilities it needs are
compared with the server's to say which are missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import imaplib
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TESTS = Path("/usr/local/share/imaptest/tests")

MISSING = """imaptest not found{where}.
It is built from source against Debian's libdovecot: docs/testing.md, "imaptest", gives
the steps (apt-get install dovecot-dev autoconf automake libtool; imaptest commit 924f619;
installs /usr/local/bin/imaptest and /usr/local/share/imaptest/tests).
Give another binary with --imaptest PATH (or IMAPTEST=PATH), other tests with --tests DIR."""


@dataclass(frozen=True, slots=True)
class Target:
    """A server under test, as imaptest logs in to it."""

    name: str
    port: int
    user: str
    password: str
    capabilities: frozenset[str]  # after login, upper-case


def find_imaptest(explicit: str) -> Path | None:
    candidate = explicit or os.environ.get("IMAPTEST", "") or shutil.which("imaptest") or ""
    path = Path(candidate) if candidate else None
    return path if path is not None and path.is_file() and os.access(path, os.X_OK) else None


def capabilities(port: int, user: str, password: str) -> frozenset[str]:
    """What the server advertises once logged in (imaptest checks a group's needs then)."""
    client = imaplib.IMAP4("127.0.0.1", port, timeout=30)
    try:
        client.login(user, password)
        typ, data = client.capability()
        assert typ == "OK", data
        raw = data[0]
        assert isinstance(raw, bytes)
        return frozenset(raw.decode().upper().split())
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            client.logout()


# ---------------------------------------------------------------- scripted test groups


@dataclass(frozen=True, slots=True)
class Group:
    """One scripted test file (and its `.mbox`, if any): what imaptest calls a test group."""

    name: str
    path: Path
    capabilities: tuple[str, ...]
    needs_user2: bool

    def missing(self, target: Target) -> list[str]:
        wanted = [cap for cap in self.capabilities if cap.upper() not in target.capabilities]
        return [*wanted, *(["a second user (user2=)"] if self.needs_user2 else [])]


def read_group(path: Path) -> Group:
    """The header (`key: value` lines up to the first empty line; docs/scripted_test.md)."""
    caps: tuple[str, ...] = ()
    needs_user2 = False
    for line in path.read_text(errors="replace").splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key == "capabilities":
            caps = tuple(value.split())
        elif key.startswith("user ") and value.strip() in ("$user2", "${user2}"):
            needs_user2 = True
    return Group(path.name, path, caps, needs_user2)


def test_groups(tests: Path, only: frozenset[str]) -> list[Group]:
    """Every test file of the directory, by name (imaptest skips sub-directories too)."""
    paths = [
        p
        for p in sorted(tests.iterdir())
        if p.is_file() and p.suffix != ".mbox" and p.name[0] != "."
    ]
    return [read_group(p) for p in paths if not only or p.name in only]


@dataclass(frozen=True, slots=True)
class GroupResult:
    verdict: str  # pass | FAIL | skip | error
    failed: int  # individual commands (command groups) that failed, base and extensions
    total: int  # those that ran to their end
    missing: tuple[str, ...]  # for a skip: what the server does not advertise
    stderr: str
    rawlogs: Path

    def cell(self) -> str:
        if self.verdict == "FAIL":  # nothing ran: the group's own setup failed
            return f"FAIL {self.failed}/{self.total}" if self.total else "FAIL setup"
        if self.verdict == "pass":
            return f"pass {self.total}"
        return self.verdict

    def first_lines(self, count: int) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()][:count]

    def cause(self) -> str:
        """The first failure in a word: a refused CREATE/APPEND/DELETE/RENAME, or a difference."""
        if self.verdict == "skip":
            return "not advertised: " + " ".join(self.missing)
        if self.verdict != "FAIL":
            return self.first_lines(1)[0][:70] if self.verdict == "error" and self.stderr else ""
        block = _first_block(self.stderr)
        verb = _failed_verb(block)
        refused = "got 'NO" in block or re.search(r"failed: NO\b", block) is not None
        where = " (setup)" if "initialization failed" in block else ""
        if refused and verb in ("CREATE", "APPEND", "DELETE", "RENAME"):
            return f"{verb} refused{where}"
        return f"differs: {verb or '?'}{where}"


def _first_block(stderr: str) -> str:
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("*** Test"):
            block = []
            for item in lines[i:]:
                if not item.strip():
                    break
                block.append(item)
            return "\n".join(block)
    return stderr


def _failed_verb(block: str) -> str:
    found = re.search(r"initialization failed: (\w+)", block) or re.search(
        r"- Command(?: \(tag [\d.]+\))?: (?:\w+ )?(\w+)", block
    )
    if found is None:
        return ""
    verb = found.group(1).upper()
    if verb == "UID":  # `uid fetch …`: the verb is the next word
        after = re.search(r"- Command(?: \(tag [\d.]+\))?: uid (\w+)", block, re.IGNORECASE)
        return f"UID {after.group(1).upper()}" if after else verb
    return verb


_SUMMARY = re.compile(r"(\d+) test groups: (\d+) failed")
_COUNTS = re.compile(r"(base protocol|extensions): (\d+)/(\d+) individual commands failed")


async def run_group(
    imaptest: Path, group: Group, target: Target, workdir: Path, timeout: float
) -> GroupResult:
    """`imaptest test=<file> rawlog` against one server, in a directory of its own."""
    rawlogs = workdir / target.name.lower() / group.name
    rawlogs.mkdir(parents=True, exist_ok=True)
    argv = [str(imaptest), "host=127.0.0.1", f"port={target.port}", f"user={target.user}"]
    argv += [f"pass={target.password}", f"test={group.path}", "rawlog"]
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=rawlogs, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        note = f"imaptest did not finish within {timeout:.0f} s (killed)\n"
        return GroupResult("error", 0, 0, (), note + err.decode(errors="replace"), rawlogs)
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    summary = _SUMMARY.search(stdout)
    counts = [(int(f), int(t)) for _, f, t in _COUNTS.findall(stdout)]
    if summary is None or len(counts) != 2:
        note = f"imaptest exited {process.returncode} without its summary\n"
        return GroupResult("error", 0, 0, (), note + stderr + stdout, rawlogs)
    failed, total = sum(f for f, _ in counts), sum(t for _, t in counts)
    if int(summary.group(2)) > 0:
        verdict = "FAIL"
    elif total == 0:
        verdict = "skip"
    else:
        verdict = "pass"
    missing = tuple(group.missing(target)) if verdict == "skip" else ()
    return GroupResult(verdict, failed, total, missing, stderr, rawlogs)


# ---------------------------------------------------------------- stress


def write_append_mbox(path: Path, count: int, to: str) -> None:
    """Messages for the stress mix's APPENDs; imaptest's state tracking needs their
    Message-IDs unique (docs/configuration.md, "Append Mbox")."""
    with path.open("w") as out:
        for n in range(count):
            out.write(
                "From imaptest@bench.invalid  Sat Jan  1 00:00:00 2022\n"
                f"From: Sender {n} <sender{n}@bench.invalid>\nTo: {to}\n"
                f"Subject: imaptest append {n}: step {n % 17} done\n"
                f"Date: Sat, 01 Jan 2022 00:{n // 60 % 60:02d}:{n % 60:02d} +0000\n"
                f"Message-ID: <imaptest-append-{n}@bench.invalid>\n"
                "MIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n\n"
                + f"Line {n} of a message appended by imaptest's stress mix.\n" * 8
                + "\n"
            )


@dataclass
class StressRun:
    """One stress run: per state (imaptest's short names) the commands answered OK, the
    commands timed and their milliseconds (sent → tagged reply), per second of the run."""

    states: list[str] = field(default_factory=list)
    ok: Counter[str] = field(default_factory=Counter)
    timed: Counter[str] = field(default_factory=Counter)
    msecs: Counter[str] = field(default_factory=Counter)
    seconds: int = 0  # rows of the per-second record
    total_ok: int = 0  # imaptest's "Totals:" (the last partial second too)
    errors: Counter[str] = field(default_factory=Counter)
    cpu_seconds: float = 0.0
    load: str = ""
    exit_code: int = 0

    def rate(self, state: str | None = None) -> float:
        count = self.ok[state] if state else sum(self.ok.values())
        return count / self.seconds if self.seconds else 0.0

    def latency(self, state: str | None = None) -> float:
        timed = self.timed[state] if state else sum(self.timed.values())
        msecs = self.msecs[state] if state else sum(self.msecs.values())
        return msecs / timed if timed else 0.0

    def cpu_ms(self) -> float:
        return 1000 * self.cpu_seconds / self.total_ok if self.total_ok else 0.0


_STATE = re.compile(r"[A-Z][A-Za-z0-9]{3}")  # a short name: Logi, Fet2, ChkP


def _numbers(line: str) -> list[int] | None:
    words = line.replace("/", " ").split()
    return [int(w) for w in words] if words and all(w.isdigit() for w in words) else None


def _error_kind(line: str) -> str:
    """An error line without what changes from one occurrence to the next (client, tag,
    sequence numbers), so that the same error counts as one kind."""
    text = re.sub(r"^Error: ", "", line)
    text = re.sub(r"\[\d+\]", "[n]", text)
    return re.sub(r"\d+", "#", text)[:160]


async def run_stress(
    imaptest: Path,
    target: Target,
    argv_tail: list[str],
    workdir: Path,
    seconds: float,
    progress: Callable[[str], None],
) -> StressRun:
    """imaptest's stress mode for `seconds` against one server, its per-second record
    (`output=`) kept in `workdir`; a progress line every ten seconds."""
    record = workdir / f"stress-{target.name.lower()}.tsv"
    argv = [str(imaptest), "host=127.0.0.1", f"port={target.port}", f"user={target.user}"]
    argv += [f"pass={target.password}", f"secs={seconds:.0f}", f"output={record}", *argv_tail]
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=workdir, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    errors = asyncio.create_task(process.stderr.read())
    run, totals_next, window = StressRun(), False, 0
    while line := (await process.stdout.readline()).decode(errors="replace"):
        numbers = _numbers(line)
        if not run.states and line.split() and all(map(_STATE.fullmatch, line.split())):
            run.states = line.split()
        elif line.startswith("Totals:"):
            totals_next = True
        elif numbers is not None and totals_next and len(numbers) == len(run.states):
            run.total_ok = sum(numbers)
        elif numbers is not None and len(numbers) == len(run.states) + 2 and "/" in line:
            run.seconds += 1  # a per-second row: counts, then connected/clients
            window += sum(numbers[: len(run.states)])
            if run.seconds % 10 == 0:
                progress(f"{run.seconds:4d} s  {window / 10:7.0f} cmd/s")
                window = 0
    run.exit_code = await process.wait()
    stderr = (await errors).decode(errors="replace")
    run.errors = Counter(_error_kind(x) for x in stderr.splitlines() if x.startswith("Error:"))
    _read_record(record, run)
    return run


def _read_record(record: Path, run: StressRun) -> None:
    """The `output=` file: a header (whose columns can include states that never run:
    it is written before imaptest drops them), then per second and per state that
    ran: OK replies, replies timed, their milliseconds."""
    if not record.exists():
        return
    rows = [r.split("\t") for r in record.read_text().splitlines()[1:] if r.strip()]
    run.ok.clear()
    for row in rows:
        if len(row) != 3 * len(run.states):
            continue
        for i, state in enumerate(run.states):
            run.ok[state] += int(row[3 * i])
            run.timed[state] += int(row[3 * i + 1])
            run.msecs[state] += int(row[3 * i + 2])
    run.seconds = len(rows) or run.seconds

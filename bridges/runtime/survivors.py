"""No process a bridge started outlives it: what survived a kill ends at the next start.

A bridge killed by SIGKILL cleans nothing up: a platform that does not notice goes
on with a turn nobody watches, and a command started detached (pi's bash tool runs
each in its own session) is reparented to init, where nothing links it to the
bridge any more. Two records find them at the next start, on the same data dir:

* every process the bridge starts inherits `AGENTMAIL_BRIDGE_OWNER=<data dir>` in
  its environment (`mark_children`); /proc/PID/environ keeps it, detached or
  orphaned, whatever the process's parent now is;
* while the bridge runs, its descendants (pid and start time, and the boot they
  belong to) are appended to `processes.jsonl` in the data dir (`record_children`),
  which finds those that dropped the environment too.

`end_survivors` kills both sets (with their own descendants, process_tree.py) and
empties the record. A pid is only killed if its start time (/proc/PID/stat field 22)
and the boot id are the recorded ones: a pid reused by another program is left
alone. Never the bridge itself nor its ancestors. Linux only; elsewhere a no-op.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path

from bridges.runtime.journal import Journal
from bridges.runtime.process_tree import descendants, kill_tree

OWNER_ENV = "AGENTMAIL_BRIDGE_OWNER"
RECORD = "processes.jsonl"
_PROC = Path("/proc")
_REWRITE_AFTER = 1000
_log = logging.getLogger("agentmail.bridge.processes")


def owner_of(data_dir: Path) -> str:
    return str(data_dir.expanduser().resolve())


def mark_children(data_dir: Path) -> None:
    """Every process started from here on carries the owner mark (os.environ is what
    the platforms' children inherit, whichever way each platform starts them)."""
    os.environ[OWNER_ENV] = owner_of(data_dir)


def start_time(pid: int) -> int | None:
    """Field 22 of /proc/PID/stat (clock ticks after boot), None if it has ended."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid …": comm may hold spaces and parentheses; starttime is
    # the 20th field after it.
    return int(stat[stat.rfind(")") + 2 :].split()[19])


def _boot_id() -> str:
    try:
        return (_PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _ancestors() -> set[int]:
    """This process and its ancestors: never ours to end."""
    found = {os.getpid()}
    pid = os.getpid()
    while pid > 1:
        try:
            stat = (_PROC / str(pid) / "stat").read_text()
        except OSError:
            break
        pid = int(stat[stat.rfind(")") + 2 :].split()[1])
        found.add(pid)
    return found


def _marked(owner: str) -> list[int]:
    """Processes whose environment carries this data dir's owner mark."""
    needle = f"{OWNER_ENV}={owner}".encode()
    found = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:  # ended meanwhile, or another user's
            continue
        if needle in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def end_survivors(data_dir: Path) -> list[int]:
    """Kill what an earlier bridge on this data dir left running; the pids killed."""
    if not _PROC.is_dir():
        return []
    journal = Journal.open(data_dir, RECORD)
    boot = _boot_id()
    suspects = set(_marked(owner_of(data_dir)))
    for record in journal.read():
        with contextlib.suppress(KeyError, TypeError, ValueError):
            pid, started = int(record["pid"]), int(record["start"])
            if record.get("boot") == boot and start_time(pid) == started:
                suspects.add(pid)
    suspects -= _ancestors()
    killed = sorted(pid for pid in suspects if start_time(pid) is not None)
    for pid in killed:
        kill_tree(pid)
    if killed:
        _log.warning(
            "ended %d processes left by the bridge's previous run: %s", len(killed), killed
        )
    journal.rewrite([])
    return killed


def _living_descendants() -> set[tuple[int, int]]:
    found = {(pid, start_time(pid)) for pid in descendants(os.getpid())}
    return {(pid, started) for pid, started in found if started is not None}


async def record_children(data_dir: Path, every: float = 1.0) -> None:
    """Append each new descendant of the bridge to the record, until cancelled."""
    if not await asyncio.to_thread(_PROC.is_dir):
        return
    journal = await asyncio.to_thread(Journal.open, data_dir, RECORD)
    boot = await asyncio.to_thread(_boot_id)
    seen: set[tuple[int, int]] = set()
    written = 0
    while True:
        alive = await asyncio.to_thread(_living_descendants)
        for pid, started in alive - seen:
            await asyncio.to_thread(journal.append, {"pid": pid, "start": started, "boot": boot})
            written += 1
        seen = alive
        if written > _REWRITE_AFTER:  # bounded: only the living are worth a line
            lines = [{"pid": pid, "start": started, "boot": boot} for pid, started in alive]
            await asyncio.to_thread(journal.rewrite, lines)
            written = 0
        await asyncio.sleep(every)

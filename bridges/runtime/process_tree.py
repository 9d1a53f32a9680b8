"""Killing a platform's child process with everything it started.

A platform's tools start processes of their own, and some put them out of reach of
the usual ways: pi's bash tool spawns each command `detached` (its own session and
process group), so neither SIGKILL to pi nor to pi's process group stops a
`sleep 600` the model ran; once pi is dead the sleeper is reparented and nothing
links it to the turn any more. So the tree is read from /proc while it is intact,
frozen top-down with SIGSTOP (a stopped process cannot fork a child we would
miss), and then killed. Where /proc is missing, the process group is all we reach.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

_PROC = Path("/proc")


def _parents() -> dict[int, int]:
    """pid → parent pid of every process we can see."""
    parents: dict[int, int] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        # "pid (comm) state ppid …": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, grandchildren…), parents before children."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    frontier = [pid]
    while frontier:
        below = [child for parent in frontier for child in children.get(parent, [])]
        found.extend(below)
        frontier = below
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and all its descendants, detached ones included."""
    if not _PROC.is_dir():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        _signal(pid, signal.SIGKILL)
        return
    frozen = {pid}
    _signal(pid, signal.SIGSTOP)
    while True:  # a child forked before its parent stopped appears on the next read
        new = [child for child in descendants(pid) if child not in frozen]
        if not new:
            break
        for child in new:
            _signal(child, signal.SIGSTOP)
        frozen.update(new)
    for member in frozen:
        _signal(member, signal.SIGKILL)

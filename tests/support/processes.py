"""Processes as /proc shows them, for tests that check what a kill left running."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path


def children(pid: int) -> list[int]:
    return [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan waits for init to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def with_cmdline(marker: str) -> list[int]:
    """The processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def ended(pid: int, timeout: float = 30) -> None:
    """Until process `pid` has exited: its pidfd turns readable (Linux 5.3), no polling."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    gone = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(descriptor, gone.set)
    try:
        async with asyncio.timeout(timeout):
            await gone.wait()
    finally:
        loop.remove_reader(descriptor)
        os.close(descriptor)

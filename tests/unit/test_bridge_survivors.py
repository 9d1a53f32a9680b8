"""What a killed bridge left running ends at its next start, and nothing else does
(bridges/runtime/survivors.py): real processes, read from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridges.runtime.survivors import OWNER_ENV, RECORD, end_survivors, owner_of, start_time

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    children: list[subprocess.Popen[bytes]] = []
    yield children
    for child in children:
        child.kill()
        child.wait()


def _sleeper(children: list[subprocess.Popen[bytes]], **env: str) -> subprocess.Popen[bytes]:
    child = subprocess.Popen(["sleep", "60"], env={**os.environ, **env}, start_new_session=True)
    children.append(child)
    return child


def _ended(child: subprocess.Popen[bytes]) -> bool:
    return child.poll() is not None


def _boot() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def test_a_recorded_pid_is_killed_only_with_its_start_time(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """A pid reused by another program (another start time) is left alone."""
    ours, reused = _sleeper(started), _sleeper(started)
    records = [
        {"pid": ours.pid, "start": start_time(ours.pid), "boot": _boot()},
        {"pid": reused.pid, "start": (start_time(reused.pid) or 0) - 1, "boot": _boot()},
    ]
    (tmp_path / RECORD).write_text("".join(json.dumps(r) + "\n" for r in records))
    assert end_survivors(tmp_path) == [ours.pid]
    ours.wait(10)
    assert _ended(ours) and not _ended(reused)
    assert (tmp_path / RECORD).read_text() == ""  # the record is emptied


def test_the_owner_mark_finds_a_detached_orphan_of_this_data_dir_only(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    ours = _sleeper(started, **{OWNER_ENV: owner_of(tmp_path)})
    other = _sleeper(started, **{OWNER_ENV: owner_of(tmp_path / "other")})
    unmarked = _sleeper(started)
    assert end_survivors(tmp_path) == [ours.pid]
    ours.wait(10)
    assert not _ended(other) and not _ended(unmarked)


def test_the_bridge_itself_is_never_a_survivor(tmp_path: Path) -> None:
    """A bridge started (somehow) by a process that carries its own mark lives on."""
    record = {"pid": os.getpid(), "start": start_time(os.getpid()), "boot": _boot()}
    (tmp_path / RECORD).write_text(json.dumps(record) + "\n")
    assert end_survivors(tmp_path) == []

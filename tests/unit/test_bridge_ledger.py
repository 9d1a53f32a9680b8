"""The bridge's delivery ledger on a temp dir: two states, one re-run, damaged lines,
compaction, and memory when the dir cannot be written."""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bridges.runtime.ledger import Ledger


async def test_two_states_and_one_re_run(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path)
    assert ledger.durable and ledger.decide("m1") == 1
    await ledger.deliver("m1", "s1", 1)
    await ledger.deliver("m2", "s1", 1)
    await ledger.complete("m2")

    reopened = await Ledger.open(tmp_path)  # a restart
    assert reopened.decide("m2") is None  # completed: never again
    assert reopened.decide("m1") == 2  # delivered only: once more, as run 2
    claim = await reopened.deliver("m1", "s1", 2)
    assert claim.interrupted
    assert (await Ledger.open(tmp_path)).decide("m1") is None  # interrupted twice: no more


async def test_a_damaged_last_line_is_skipped_and_the_next_record_is_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = await Ledger.open(tmp_path)
    await ledger.deliver("m1", "s1", 1)
    await ledger.complete("m1")
    path = tmp_path / "ledger.jsonl"
    with path.open("ab") as stream:
        stream.write(b'{"mail_id": "m2", "state": "compl')  # the crash cut it short
    with caplog.at_level(logging.WARNING):
        reopened = await Ledger.open(tmp_path)
    assert "damaged" in caplog.text
    assert reopened.decide("m1") is None and reopened.decide("m2") == 1
    await reopened.deliver("m3", "s1", 1)
    assert (await Ledger.open(tmp_path)).decide("m3") == 2
    assert json.loads(path.read_text().splitlines()[-1])["mail_id"] == "m3"


async def test_entries_older_than_fourteen_days_are_compacted(tmp_path: Path) -> None:
    ledger = await Ledger.open(tmp_path)
    await ledger.deliver("old", "s1", 1)
    await ledger.complete("old")
    await ledger.deliver("new", "s1", 1)
    later = datetime.now(UTC) + timedelta(days=14, minutes=1)
    # Only "new" is touched again near `later`; "old" is past the retention.
    ledger.get("new").at = later  # type: ignore[union-attr]
    assert await ledger.compact(later) == 1
    lines = (tmp_path / "ledger.jsonl").read_text().splitlines()
    assert [json.loads(line)["mail_id"] for line in lines] == ["new"]
    assert (await Ledger.open(tmp_path)).decide("new") == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
async def test_an_unwritable_dir_degrades_to_memory_loudly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with caplog.at_level(logging.ERROR):
        ledger = await Ledger.open(locked / "bridge")
    assert not ledger.durable and "IN MEMORY ONLY" in caplog.text
    await ledger.deliver("m1", "s1", 1)
    assert ledger.decide("m1") == 2


async def test_a_path_that_is_a_file_degrades_to_memory_loudly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    with caplog.at_level(logging.ERROR):
        ledger = await Ledger.open(blocker)
    assert not ledger.durable and "IN MEMORY ONLY" in caplog.text
    await ledger.complete("m1")
    assert ledger.decide("m1") is None

"""The bridge's kept stream position on a temp dir: kept across a restart, only for
its own gateway, and a damaged or missing file means "no position", never a crash."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bridges.runtime.stream_position import FILE, StreamPosition

URL = "http://127.0.0.1:8180"


async def test_the_position_is_kept_across_a_restart(tmp_path: Path) -> None:
    assert (await StreamPosition.open(tmp_path, URL)).last_event_id is None
    position = await StreamPosition.open(tmp_path, URL)
    await position.save(41)
    await position.save(None)  # unknown: the kept one stays
    await position.save(42)
    assert (await StreamPosition.open(tmp_path, URL)).last_event_id == 42
    assert os.listdir(tmp_path) == [FILE]  # no temporary file left
    assert os.stat(tmp_path / FILE).st_mode & 0o777 == 0o600


async def test_another_gateways_position_is_not_used(tmp_path: Path) -> None:
    await (await StreamPosition.open(tmp_path, URL)).save(42)
    other = await StreamPosition.open(tmp_path, "http://gateway.example:8180")
    assert other.last_event_id is None


@pytest.mark.parametrize(
    "content", [b"", b'{"url": "http://127.0.0.1:8180", "last_eve', b"[]", b'{"url": 1}']
)
async def test_a_damaged_file_means_no_position(tmp_path: Path, content: bytes) -> None:
    (tmp_path / FILE).write_bytes(content)
    position = await StreamPosition.open(tmp_path, URL)
    assert position.last_event_id is None
    await position.save(7)  # and it is written whole again
    assert json.loads((tmp_path / FILE).read_bytes()) == {"url": URL, "last_event_id": 7}

"""Where the bridge's event stream stands, kept across restarts of the bridge.

`stream.json` in the data dir: the gateway's URL and the last event id the runtime
has handled. A restarted bridge resumes its stream from there with `Last-Event-ID`
(docs/api.md), so what was committed while it was down is replayed, in order; the
ledger keeps a replayed mail from running twice, so an older position is only
slower, never wrong. The file is written whole into a temporary file, fsync'd and
renamed over the old one: a kill leaves the old position or the new one, never
half of one. A position kept for another URL is not used: its ids count another
gateway's events. If the directory cannot be written the position lives in
memory (logged once): the start-up catch-up still finds what a restart missed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

FILE = "stream.json"
_log = logging.getLogger("agentmail.bridge.stream")


class StreamPosition:
    def __init__(self, path: Path, url: str, last_event_id: int | None) -> None:
        self.path = path
        self.url = url
        self.last_event_id = last_event_id
        self._warned = False

    @classmethod
    async def open(cls, directory: Path, url: str) -> StreamPosition:
        path = directory / FILE
        return cls(path, url, await asyncio.to_thread(_read, path, url))

    async def save(self, last_event_id: int | None) -> None:
        """Keep `last_event_id` (nothing to do when it is unknown or unchanged)."""
        if last_event_id is None or last_event_id == self.last_event_id:
            return
        record = {"url": self.url, "last_event_id": last_event_id}
        try:
            await asyncio.to_thread(_write, self.path, record)
        except OSError as error:
            if not self._warned:
                _log.error(
                    "cannot write %s (%s): the stream position is in memory", self.path, error
                )
                self._warned = True
        self.last_event_id = last_event_id


def _read(path: Path, url: str) -> int | None:
    try:
        record = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        _log.warning("%s is unreadable (%s): the stream starts without a position", path, error)
        return None
    if not isinstance(record, dict) or record.get("url") != url:
        return None
    value = record.get("last_event_id")
    return value if isinstance(value, int) and value >= 0 else None


def _write(path: Path, record: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(descriptor, json.dumps(record).encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, path)

"""An append-only JSON-lines file that still counts after the process dies.

Every record is one line, written and fsync'd before the call returns: the file
exists so that a SIGKILL does not forget. A crash can leave the last line cut
short; reading skips a line that is not JSON (that mail then counts as not yet
recorded, which makes it run again rather than be lost: the safe side).
Compaction rewrites the kept records into a temporary file, fsyncs it and renames
it over the journal, so a crash during it leaves the old file or the new one.
If the directory cannot be written the journal lives in memory only, with a loud
warning: no worse than no journal, and the bridge still starts.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_log = logging.getLogger("agentmail.bridge.journal")
Record = dict[str, Any]


class Journal:
    def __init__(self, path: Path | None) -> None:
        """`path` None: memory only."""
        self.path = path
        self._lock = threading.Lock()  # appends come from worker threads

    @classmethod
    def open(cls, directory: Path, name: str) -> Journal:
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / name
            with path.open("a", encoding="utf-8"):
                pass
            return cls(path)
        except OSError as error:
            _log.error(
                "!!! cannot write %s (%s): the %s is kept IN MEMORY ONLY; a restart will "
                "forget what was delivered and completed. Fix the data directory. !!!",
                directory,
                error,
                name,
            )
            return cls(None)

    @property
    def durable(self) -> bool:
        return self.path is not None

    def read(self) -> list[Record]:
        if self.path is None or not self.path.exists():
            return []
        records = []
        with self.path.open("rb") as stream:
            for number, line in enumerate(stream, 1):
                try:
                    record = json.loads(line)
                except ValueError:  # UnicodeDecodeError is one too
                    _log.warning(
                        "%s line %d is damaged (a crash mid-write?): skipped", self.path, number
                    )
                    continue
                if isinstance(record, dict):
                    records.append(record)
        return records

    def append(self, record: Record) -> None:
        if self.path is None:
            return
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._lock:
            descriptor = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                _ensure_line_start(descriptor)
                os.write(descriptor, line)
                os.fsync(descriptor)
            finally:
                os.close(descriptor)

    def rewrite(self, records: Iterable[Record]) -> None:
        if self.path is None:
            return
        temporary = self.path.with_name(self.path.name + ".compact")
        with self._lock:
            with temporary.open("w", encoding="utf-8") as stream:
                for record in records:
                    stream.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
                    stream.write("\n")
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, self.path)


def _ensure_line_start(descriptor: int) -> None:
    """After a cut-short last line, start on a new line so the next record is whole."""
    size = os.fstat(descriptor).st_size
    if size and os.pread(descriptor, 1, size - 1) != b"\n":
        os.write(descriptor, b"\n")

"""The delivery ledger: which mails were handed to the platform, which were finished.

Two states per mail (the homeagent lesson, seeds 003): `delivered` (a turn was
started for it) and `completed` (the turn's final reply was acknowledged by the
gateway). Recording only "delivered" would turn a duplicate into a loss: a turn
killed mid-way would never run again and the human would never get an answer.

* completed → never run again;
* delivered, not completed (the bridge died mid-turn) → run again once, with a
  note telling the model the previous turn was interrupted; its replies carry the
  same idempotency keys, so what the first run already sent is not sent twice;
* interrupted twice → not run a third time: a turn that kills its bridge must not
  do it forever; the sender is told (recovery.py).

Entries untouched for 14 days are compacted away. The decision and the record are
made under one lock (`Runtime` holds it for SSE delivery and catch-up alike).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from bridges.runtime.journal import Journal, Record

RETENTION = timedelta(days=14)
MAX_RUNS = 2  # the first run and one re-run after an interruption
State = Literal["delivered", "completed"]


@dataclass(slots=True)
class Entry:
    mail_id: str
    session_id: str
    state: State
    runs: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Claim:
    """A turn to run for a mail: `interrupted` when a previous run did not finish."""

    mail_id: str
    session_id: str
    run: int

    @property
    def interrupted(self) -> bool:
        return self.run > 1


class Ledger:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._entries: dict[str, Entry] = {}
        for record in journal.read():
            self._apply(record)

    @classmethod
    async def open(cls, directory: Path) -> Ledger:
        return await asyncio.to_thread(lambda: cls(Journal.open(directory, "ledger.jsonl")))

    @property
    def durable(self) -> bool:
        return self._journal.durable

    def get(self, mail_id: str) -> Entry | None:
        return self._entries.get(mail_id)

    def unfinished(self) -> list[Entry]:
        return [e for e in self._entries.values() if e.state == "delivered"]

    def cut_twice(self, mail_id: str) -> bool:
        """Delivered and interrupted as often as it may be: report it, do not run it."""
        entry = self._entries.get(mail_id)
        return entry is not None and entry.state == "delivered" and entry.runs >= MAX_RUNS

    def decide(self, mail_id: str) -> int | None:
        """The run number a new turn for this mail would be, or None: do not run it."""
        entry = self._entries.get(mail_id)
        if entry is None:
            return 1
        if entry.state == "completed" or entry.runs >= MAX_RUNS:
            return None
        return entry.runs + 1

    async def deliver(self, mail_id: str, session_id: str, run: int) -> Claim:
        await self._write(
            {"mail_id": mail_id, "session_id": session_id, "state": "delivered", "runs": run}
        )
        return Claim(mail_id, session_id, run)

    async def complete(self, mail_id: str) -> None:
        entry = self._entries.get(mail_id)
        session_id = entry.session_id if entry else ""
        runs = entry.runs if entry else 1
        await self._write(
            {"mail_id": mail_id, "session_id": session_id, "state": "completed", "runs": runs}
        )

    async def consume(self, mail_id: str, session_id: str) -> None:
        """A mail that answered a platform's question: settled without a turn of its own."""
        await self._write(
            {"mail_id": mail_id, "session_id": session_id, "state": "completed", "runs": 0}
        )

    async def compact(self, now: datetime | None = None) -> int:
        """Forget entries older than the retention; rewrite the file when that is half of it."""
        cutoff = (now or datetime.now(UTC)) - RETENTION
        old = [k for k, e in self._entries.items() if e.at < cutoff]
        for key in old:
            del self._entries[key]
        if old:
            kept = [_record(e) for e in self._entries.values()]
            await asyncio.to_thread(self._journal.rewrite, kept)
        return len(old)

    async def _write(self, record: Record) -> None:
        record["at"] = datetime.now(UTC).isoformat()
        await asyncio.to_thread(self._journal.append, record)
        self._apply(record)

    def _apply(self, record: Record) -> None:
        try:
            state = record["state"]
            if state not in ("delivered", "completed"):
                return
            entry = Entry(
                str(record["mail_id"]),
                str(record.get("session_id", "")),
                state,
                int(record.get("runs", 1)),
                datetime.fromisoformat(str(record["at"])),
            )
        except (KeyError, TypeError, ValueError):
            return  # a record this version cannot read counts as absent
        self._entries[entry.mail_id] = entry


def _record(entry: Entry) -> Record:
    return {
        "mail_id": entry.mail_id,
        "session_id": entry.session_id,
        "state": entry.state,
        "runs": entry.runs,
        "at": entry.at.isoformat(),
    }

""" "Always allow" decisions, per conversation and workspace, kept in the data dir.

A human who answers a prompt with "always allow" means: this action, in this
conversation and this workspace, from now on. The grant survives restarts and is
passed to every worker of that conversation, so the platform does not ask again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bridges.runtime.journal import Journal

ALWAYS = "always allow"


class Grants:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._grants: dict[tuple[str, str], set[str]] = {}
        for record in journal.read():
            key = (str(record.get("session_id", "")), str(record.get("workspace", "")))
            self._grants.setdefault(key, set()).add(str(record.get("action", "")))

    @classmethod
    async def open(cls, directory: Path) -> Grants:
        return await asyncio.to_thread(lambda: cls(Journal.open(directory, "grants.jsonl")))

    def of(self, session_id: str, workspace: str) -> list[str]:
        return sorted(self._grants.get((session_id, workspace), set()))

    async def allow(self, session_id: str, workspace: str, action: str) -> None:
        if action in self._grants.get((session_id, workspace), set()):
            return
        record = {"session_id": session_id, "workspace": workspace, "action": action}
        await asyncio.to_thread(self._journal.append, record)
        self._grants.setdefault((session_id, workspace), set()).add(action)

"""What the Claude Code bridge remembers across restarts (`claude.jsonl` in the data dir).

* which Claude Code session is which conversation (and in which directory: Claude
  Code keeps a session's transcript per project directory), so the next mail of a
  conversation resumes the same session (`resume=`), with its history;
* the alias last synced for that session, so a title is asked for and synced once;
* each open prompt's text (the action, or the question), so that after a restart
  the decision can be put to the resumed session in words: the prompt the CLI
  was waiting in died with it.

One JSON line per change (bridges/runtime/journal.py: fsync'd, a damaged last
line skipped); the last record of a key wins.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from pathlib import Path

from bridges.runtime.journal import Journal


@dataclass(frozen=True, slots=True)
class SessionRecord:
    conversation: str
    session: str  # Claude Code's session id
    cwd: str
    alias: str | None = None  # the alias the gateway settled on, once synced


@dataclass(frozen=True, slots=True)
class PromptRecord:
    request_id: str
    conversation: str
    kind: str  # "ask" | "question"
    text: str  # the action, or the question


class Memory:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._sessions: dict[str, SessionRecord] = {}
        self._prompts: dict[str, PromptRecord] = {}
        for record in journal.read():
            try:
                if record.get("type") == "session":
                    session = SessionRecord(
                        str(record["conversation"]),
                        str(record["session"]),
                        str(record["cwd"]),
                        record.get("alias"),
                    )
                    self._sessions[session.conversation] = session
                elif record.get("type") == "prompt":
                    prompt = PromptRecord(
                        str(record["request_id"]),
                        str(record["conversation"]),
                        str(record["kind"]),
                        str(record["text"]),
                    )
                    self._prompts[prompt.request_id] = prompt
                elif record.get("type") == "answered":
                    self._prompts.pop(str(record["request_id"]), None)
            except KeyError:
                continue

    @classmethod
    async def open(cls, directory: Path) -> Memory:
        return await asyncio.to_thread(lambda: cls(Journal.open(directory, "claude.jsonl")))

    def session(self, conversation: str) -> SessionRecord | None:
        return self._sessions.get(conversation)

    def prompt(self, request_id: str) -> PromptRecord | None:
        return self._prompts.get(request_id)

    async def remember_session(self, record: SessionRecord) -> None:
        if self._sessions.get(record.conversation) != record:
            self._sessions[record.conversation] = record
            await self._append({"type": "session", **asdict(record)})

    async def remember_prompt(self, record: PromptRecord) -> None:
        self._prompts[record.request_id] = record
        await self._append({"type": "prompt", **asdict(record)})

    async def forget_prompt(self, request_id: str) -> None:
        """The prompt was answered and its turn went on: its text is needed no more."""
        if self._prompts.pop(request_id, None) is not None:
            await self._append({"type": "answered", "request_id": request_id})

    async def compact(self) -> None:
        """Rewrite the journal as the current state (at start, before any turn)."""
        records = [{"type": "session", **asdict(s)} for s in self._sessions.values()]
        records += [{"type": "prompt", **asdict(p)} for p in self._prompts.values()]
        await asyncio.to_thread(self._journal.rewrite, records)

    async def _append(self, record: dict[str, object]) -> None:
        await asyncio.to_thread(self._journal.append, record)

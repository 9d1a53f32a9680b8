"""What the opencode platform keeps across restarts, in the bridge's data dir
(`opencode.jsonl`, an fsync'd journal like the runtime's own):

* which opencode session is which conversation, so the next mail of a conversation
  continues the same session (opencode keeps the sessions themselves in its own
  database, which outlives its process);
* each prompt it handed to the runtime (a permission or a question): its opencode
  session, the action or question text. opencode forgets its pending prompts when
  it restarts; the turn is then run again with the decision said in words, and the
  approved action answered by the bridge when the model asks for it again.

A prompt is forgotten (an `answered` record) once the turn that carried its decision
has run; the journal is rewritten as the current state at each start, so it holds one
line per conversation and per open prompt however long the bridge lives.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from pathlib import Path

from bridges.runtime.journal import Journal


@dataclass(frozen=True, slots=True)
class Prompt:
    request_id: str  # opencode's per_… or que_…
    session: str  # the opencode session that asked
    kind: str  # "permission" | "question"
    text: str  # the action, or the question


class OpencodeStore:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self.sessions: dict[str, str] = {}  # conversation → opencode session
        self.prompts: dict[str, Prompt] = {}
        for record in journal.read():
            if "conversation" in record:
                self.sessions[str(record["conversation"])] = str(record["session"])
            elif "answered" in record:
                self.prompts.pop(str(record["answered"]), None)
            elif "request_id" in record:
                try:
                    prompt = Prompt(**record)
                except TypeError:
                    continue
                self.prompts[prompt.request_id] = prompt

    @classmethod
    async def open(cls, directory: Path) -> OpencodeStore:
        return await asyncio.to_thread(lambda: cls(Journal.open(directory, "opencode.jsonl")))

    async def map_session(self, conversation: str, session: str) -> None:
        await asyncio.to_thread(
            self._journal.append, {"conversation": conversation, "session": session}
        )
        self.sessions[conversation] = session

    async def remember(self, prompt: Prompt) -> None:
        if self.prompts.get(prompt.request_id) == prompt:
            return
        await asyncio.to_thread(self._journal.append, asdict(prompt))
        self.prompts[prompt.request_id] = prompt

    async def forget(self, request_id: str) -> None:
        """The decision on this prompt reached opencode: its text is needed no more."""
        if self.prompts.pop(request_id, None) is not None:
            await asyncio.to_thread(self._journal.append, {"answered": request_id})

    async def compact(self) -> None:
        """Rewrite the journal as the current state (at start, before any turn)."""
        records: list[dict[str, object]] = [
            {"conversation": conversation, "session": session}
            for conversation, session in self.sessions.items()
        ]
        records += [asdict(prompt) for prompt in self.prompts.values()]
        await asyncio.to_thread(self._journal.rewrite, records)

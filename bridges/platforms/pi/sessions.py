"""Which pi session file holds a conversation, and what the bridge must remember of it.

One conversation is one pi session, in one file under `<data dir>/pi/sessions/`
(pi names it when the conversation's first turn starts it), so the next mail of the
conversation opens the same file and the model sees the history.
`conversations.json` keeps per conversation that file and what pi itself does not
know: the title last written back to pi (so a rename made in pi is told apart from
our own write-back), and the human prompt a parked turn waits on (so a bridge
restarted while the human decided can run the turn again with the decision
applied).
Written whole to a temporary file, fsync'd and renamed: a crash leaves the old map
or the new one, never half of one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

_log = logging.getLogger("agentmail.bridge.pi")


@dataclass
class OpenPrompt:
    """The dialog a parked turn waits on: a permission (`text` is the action) or a
    question (`text` is the question)."""

    request_id: str
    kind: Literal["permission", "question"]
    text: str


@dataclass
class ConversationState:
    file: str | None = None  # pi's session file
    title: str | None = None  # the name last written to pi's session (the settled alias)
    open: OpenPrompt | None = None


@dataclass
class SessionMap:
    directory: Path
    states: dict[str, ConversationState] = field(default_factory=dict)
    _saving: asyncio.Lock = field(default_factory=asyncio.Lock)  # one writer of the file

    @classmethod
    async def open(cls, directory: Path) -> SessionMap:
        sessions = cls(directory)
        await asyncio.to_thread((directory / "sessions").mkdir, parents=True, exist_ok=True)
        try:
            raw = json.loads(await asyncio.to_thread(sessions._path.read_text))
        except FileNotFoundError:
            return sessions
        except (OSError, ValueError) as error:
            _log.error(
                "the pi session map %s is unreadable (%s): starting afresh", sessions._path, error
            )
            return sessions
        for session_id, item in raw.items():
            opened = item.get("open")
            sessions.states[session_id] = ConversationState(
                file=item.get("file"),
                title=item.get("title"),
                open=OpenPrompt(**opened) if opened else None,
            )
        return sessions

    @property
    def _path(self) -> Path:
        return self.directory / "conversations.json"

    @property
    def files(self) -> Path:
        """Where pi keeps the conversations' session files (its `--session-dir`)."""
        return self.directory / "sessions"

    def state(self, session_id: str) -> ConversationState:
        return self.states.setdefault(session_id, ConversationState())

    async def save(self) -> None:
        data = {key: asdict(value) for key, value in self.states.items()}
        text = json.dumps(data, ensure_ascii=False, indent=1)
        async with self._saving:
            await asyncio.to_thread(self._write, text)

    def _write(self, text: str) -> None:
        temporary = self._path.with_suffix(".tmp")
        with temporary.open("w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(self._path)

"""What the runtime asks of an agent platform: run one turn, outside the event loop.

A platform adapter (opencode, Claude Code, pi, the stub) implements `Platform`.
`run_turn` must not block the loop (the work happens in a child process or the
platform's own server) and must stop that work when it is cancelled (the runtime
cancels it at the hard timeout). A turn ends in one of two ways:

* `Final`: the answer, which the runtime mails back as the reply;
* `Ask`: the platform wants a human's permission for `action`. The turn is parked:
  it holds no worker slot while the human decides; the runtime later calls
  `run_turn` again with `resume` (the decision), and the platform goes on where it
  stopped (or, if it forgot its prompt, runs the turn with the decision applied).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Resume:
    request_id: str
    decision: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    mail_id: str
    session_id: str
    workspace: str  # the workspace's name (grants are kept per workspace)
    cwd: str  # its path: where the platform works
    prompt: str  # the notification (bridges/runtime/prompt.py), never the whole mail
    run: int  # 2 = a re-run after an interruption
    grants: list[str] = field(default_factory=list)  # actions always allowed here
    resume: Resume | None = None


@dataclass(frozen=True, slots=True)
class Ask:
    request_id: str
    action: str
    question: str


@dataclass(frozen=True, slots=True)
class Final:
    body: str


class Platform(Protocol):
    name: str

    async def run_turn(self, turn: Turn) -> Ask | Final: ...

"""What the runtime asks of an agent platform: run one turn, outside the event loop.

A platform adapter (opencode, Claude Code, pi, the stub) implements `Platform`
and is made by a factory named in bridges/platforms (`create(PlatformContext)`).
`start` runs once before the first turn (start the platform's server, read the
session map), `close` once at the end. `run_turn` must not block the loop (the work
happens in a child process or the platform's own server) and must stop that work
when it is cancelled (the runtime cancels it at the hard timeout). A turn ends in
one of three ways:

* `Final`: the answer, which the runtime mails back as the reply;
* `Ask`: the platform wants a human's permission for `action`. The turn is parked:
  it holds no worker slot while the human decides; the runtime later calls
  `run_turn` again with `resume` (the decision), and the platform goes on where it
  stopped (or, if it forgot its prompt, runs the turn with the decision applied);
* `Question`: the platform asks the human something (its question-to-user tool or
  dialog). Parked the same way; resumed with `Resume(request_id, "answer", note=
  <the human's reply>)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bridges.client import AgentClient

ANSWER = "answer"  # Resume.decision when a Question was answered


@dataclass(frozen=True, slots=True)
class Resume:
    request_id: str
    decision: str  # approve | always | reject | expired, or ANSWER for a Question
    note: str | None = None  # the human's note; for a Question, the answer itself


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
class Question:
    request_id: str
    text: str  # the question as the platform asked it
    options: list[str] = field(default_factory=list)  # choices, when the platform offers some


@dataclass(frozen=True, slots=True)
class Final:
    body: str


TurnResult = Ask | Question | Final


@dataclass(frozen=True, slots=True)
class PlatformContext:
    """What a platform factory gets: who the agent is, where it works, and the gateway."""

    client: AgentClient  # the agent's client (alias sync, the mail tools' identity)
    url: str  # the gateway, for tools that run in the platform's own process
    key: str  # the agent key those tools act with
    agent_name: str
    workspaces: list[tuple[str, str]]  # (name, path)
    data_dir: Path  # the bridge's data dir: a platform keeps its session map here
    environ: Mapping[str, str]  # the platform's settings (AGENTMAIL_<PLATFORM>_*)


class Platform(Protocol):
    name: str

    async def start(self) -> None: ...

    async def run_turn(self, turn: Turn) -> TurnResult: ...

    async def close(self) -> None: ...

"""What the scripted model sees and says, the same for every wire protocol.

A platform's request (OpenAI chat completions or Anthropic Messages) is read into
an `Exchange`: the system text, the messages with their tool calls and results,
and the names of the tools offered. A test's script answers an exchange with a
`Reply` (text, tool calls, or both). The protocol modules translate both ways, so a
script written for opencode reads the same as one for Claude Code.

Tool names differ by platform (`bash` in opencode and pi, `Bash` in Claude Code,
`agentmail_read_mail` or `mcp__agentmail__read_mail` for a mail tool): a script
names a tool as it means it and `Exchange.find_tool` picks the offered tool whose
name is that name or ends with it, case-insensitively.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class ToolResult:
    call_id: str
    text: str
    is_error: bool = False


@dataclass
class Message:
    role: str  # system | user | assistant | tool | context (text beside tool results)
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    result: ToolResult | None = None  # role == "tool"


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)


@dataclass
class Exchange:
    """One request from a platform, and (once answered) the reply it got."""

    protocol: str  # "openai" | "anthropic"
    model: str
    system: str
    messages: list[Message]
    tools: list[str]
    stream: bool
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    reply: Reply | None = None

    @property
    def turn(self) -> list[Message]:
        """The messages after the last user message that carries text: the current task."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.role == "user" and message.text.strip():
                return self.messages[index:]
        return list(self.messages)

    @property
    def task(self) -> str:
        """The text of the user message that started this turn ("" if none)."""
        turn = self.turn
        return turn[0].text if turn and turn[0].role == "user" else ""

    @property
    def step(self) -> int:
        """How many model replies this turn has had already (0 for its first request)."""
        return sum(1 for message in self.turn if message.role == "assistant")

    @property
    def results(self) -> list[ToolResult]:
        """The tool results of this turn, oldest first."""
        return [m.result for m in self.turn if m.result is not None]

    @property
    def everything(self) -> str:
        """All text of the request: the system prompt, messages and tool results."""
        parts = [self.system]
        for message in self.messages:
            parts.append(message.text)
            if message.result is not None:
                parts.append(message.result.text)
        return "\n".join(parts)

    def find_tool(self, wanted: str) -> str | None:
        """The offered tool meant by `wanted` (exact, then by suffix; any case)."""
        want = wanted.lower()
        for name in self.tools:
            if name.lower() == want:
                return name
        for name in self.tools:
            if re.search(rf"(^|[_\W]){re.escape(want)}$", name.lower()):
                return name
        return None

    def resolved(self, reply: Reply) -> Reply:
        """`reply` with its tool names replaced by the offered ones (an unknown name stays)."""
        calls = [
            ToolCall(self.find_tool(call.name) or call.name, call.arguments, call.id)
            for call in reply.tool_calls
        ]
        return Reply(reply.text, calls)


Script = Callable[[Exchange], "Reply | Awaitable[Reply]"]


def call(tool: str, **arguments: Any) -> Reply:
    """A reply that calls one tool."""
    return Reply(tool_calls=[ToolCall(tool, arguments)])


def say(text: str) -> Reply:
    return Reply(text=text)


def steps(*plan: Reply | Callable[[Exchange], Reply]) -> Callable[[Exchange], Reply]:
    """A script for one kind of turn: the turn's k-th request gets `plan[k]` (the last
    one past the end). Counting per turn, not per server, keeps concurrent sessions
    and re-run turns apart."""
    if not plan:
        raise ValueError("a plan needs at least one reply")

    def script(exchange: Exchange) -> Reply:
        item = plan[min(exchange.step, len(plan) - 1)]
        return item(exchange) if callable(item) else item

    return script

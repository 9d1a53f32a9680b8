"""A mail tool: its one definition (name, JSON schema, description for a model)
and what it runs; the context every tool runs in; the error a model reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridges.client import AgentClient
from bridges.tools.decisions import DecisionBoard

Json = dict[str, Any]

# Bounds the schemas share, so every input has a limit.
ID = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
ADDRESS = {"type": "string", "minLength": 1, "maxLength": 1200}


class ToolError(Exception):
    """A refusal the model should read and act on: the message says what to change."""


@dataclass(frozen=True, slots=True)
class AgentIdentity:
    """Who the tools act as, for (re)registering: the agent's name and workspaces."""

    name: str
    workspaces: tuple[tuple[str, str], ...]
    platform: str = "mcp"

    def workspace_list(self) -> list[dict[str, str]]:
        return [{"name": name, "path": path} for name, path in self.workspaces]


@dataclass
class ToolContext:
    """What a tool may use: the client SDK, the directories files may be read from
    and written to (`roots`, the agent's workspaces), and the decisions seen."""

    client: AgentClient
    roots: tuple[Path, ...]
    identity: AgentIdentity | None = None
    decisions: DecisionBoard = field(default_factory=DecisionBoard)


Runner = Callable[[ToolContext, Json], Awaitable[Json]]


@dataclass(frozen=True, slots=True)
class MailTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    run: Runner


def schema(required: list[str], **properties: Any) -> dict[str, Any]:
    """An object schema that refuses unknown arguments (a misspelt one is a mistake
    the model should hear about, not an argument silently dropped)."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def text(description: str, max_length: int, min_length: int = 0) -> dict[str, Any]:
    return {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }


def integer(description: str, minimum: int, maximum: int, default: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "description": description,
        "minimum": minimum,
        "maximum": maximum,
        "default": default,
    }


def described(base: dict[str, Any], description: str) -> dict[str, Any]:
    return {**base, "description": description}

"""What Claude Code's permission prompts and questions say, in the runtime's terms.

Claude Code asks through `can_use_tool` (claude-agent-sdk) in two cases: a tool call
its permission rules say to ask about (`Bash`, `Write`, `Edit`, …), and its
`AskUserQuestion` tool, the model's question to the user. The first becomes an
`Ask` whose `action` is the exact thing approved: a Bash call's command as the
model wrote it, any other tool's name and complete input, so an approval binds
every byte of what will run (the gateway keeps the action's SHA-256). The second
becomes one `Question` per question asked; the answers go back in the tool's
input as `answers` (question text → answer), which is how Claude Code's own
dialog answers it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bridges.runtime.subjects import run_question

ASK_USER = "AskUserQuestion"
MAX_QUESTION = 900  # the permission mail's subject line (the gateway takes 998)


def action_of(tool: str, arguments: dict[str, Any]) -> str:
    command = arguments.get("command")
    if tool == "Bash" and isinstance(command, str):
        return command
    return f"{tool} {json.dumps(arguments, ensure_ascii=False, sort_keys=True)}"


def question_of(tool: str, arguments: dict[str, Any], title: str | None) -> str:
    """The permission mail's question: the command a Bash call runs (`run "npm test"?`,
    so pending requests differ in a mail client's list), else Claude Code's own
    sentence when it gives one, else the tool and what it is for."""
    command = arguments.get("command")
    if tool == "Bash" and isinstance(command, str) and command.strip():
        said = run_question(command)
    elif title:
        said = title
    else:
        description = arguments.get("description")
        what = f" ({description})" if isinstance(description, str) and description else ""
        said = f"use {tool}{what}?"
    said = " ".join(said.split())
    return said if len(said) <= MAX_QUESTION else said[: MAX_QUESTION - 1] + "…"


@dataclass(frozen=True, slots=True)
class Asked:
    """One question of an AskUserQuestion call, as the human will read it."""

    text: str  # Claude Code's question (the key its answer goes under)
    body: str  # the text with the choices' descriptions
    options: list[str]  # the choices' labels; a human may answer anything else too


def questions_of(arguments: dict[str, Any]) -> list[Asked]:
    asked = []
    for item in arguments.get("questions") or []:
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            continue
        options = [o for o in item.get("options") or [] if isinstance(o, dict) and o.get("label")]
        labels = [str(o["label"]) for o in options]
        described = [f"- {o['label']}: {o['description']}" for o in options if o.get("description")]
        body = item["question"]
        if item.get("multiSelect"):
            body += "\n\n(More than one may be chosen: name them all.)"
        if described:
            body += "\n\n" + "\n".join(described)
        asked.append(Asked(item["question"], body, labels))
    return asked


def answered(arguments: dict[str, Any], answers: dict[str, str]) -> dict[str, Any]:
    """The AskUserQuestion input with the human's answers, as Claude Code's dialog fills it."""
    return {**arguments, "answers": answers}

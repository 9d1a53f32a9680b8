"""What pi's dialogs mean to the bridge, and the words that go back to the model.

The extension (extension/agentmail.ts) speaks through pi's dialog methods; these
are the titles it uses and the texts built from what it sends. Kept apart from the
turn's event loop so the wording and the action text (what a human approves, bound
by its SHA-256 in the permission mail) are in one place.
"""

from __future__ import annotations

import json
from typing import Any

from bridges.runtime.grants import ALWAYS
from bridges.runtime.platform import Resume
from bridges.runtime.subjects import MAX_WHAT, run_question

PERMISSION = "agentmail:permission"  # confirm(PERMISSION, {tool, toolCallId, input})
NOTE = "agentmail:note"  # editor(NOTE, {toolCallId}) after a refusal: why
TOOL = "agentmail:tool"  # editor(TOOL, {name, arguments}): run a mail tool
DIALOGS = ("select", "confirm", "input", "editor")  # the methods that wait for an answer
ALWAYS_DECISIONS = (ALWAYS, "always")  # the option's text; the interface's short name
APPROVING = ("approve", *ALWAYS_DECISIONS)
_YES = ("y", "yes", "ok", "approve", "allow", "true", "1")


def action_of(tool: str, given: Any) -> str:
    """The exact action a human is asked to allow: the command for bash, the path for a
    file tool, the tool and its arguments otherwise."""
    arguments = given if isinstance(given, dict) else {}
    if tool == "bash" and isinstance(arguments.get("command"), str):
        return str(arguments["command"])
    if tool in ("write", "edit") and isinstance(arguments.get("path"), str):
        return f"{tool} {arguments['path']}"
    return f"{tool} {json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"


def question_for(tool: str, action: str) -> str:
    """What the permission mail asks: `run "npm test"?`, `edit src/app.py?`, `use grep?`."""
    if tool == "bash":
        return run_question(action)
    if tool in ("write", "edit"):
        return f"{' '.join(action.split())[:MAX_WHAT]}?"
    return f"use {tool}?"


def refusal(action: str, resume: Resume) -> str:
    """The blocked tool's result: what the model reads about the human's decision."""
    if resume.decision == "expired":
        said = f"The permission request for `{action}` expired without a decision"
    else:
        said = f"The human rejected `{action}`"
    note = (resume.note or "").strip()
    return f"{said}. Their note: {note}" if note else f"{said}. Do not do it."


def restarted_note(kind: str, text: str, resume: Resume) -> str:
    """Prepended to a turn run again because pi lost its prompt (the bridge restarted
    while the human decided): the decision as it was taken."""
    head = (
        "While this turn waited for the human, the bridge restarted and your previous "
        "run of it stopped."
    )
    if kind == "question":
        return f"{head} You had asked: {text}\nThe human answered: {resume.note or ''}"
    if resume.decision in APPROVING:
        return f"{head} The human approved `{text}`: you may do it now."
    return f"{head} {refusal(text, resume)}"


def question_text(request: dict[str, Any]) -> str:
    """A dialog of another kind (the `question` tool, another extension) as a question."""
    title = str(request.get("title") or "")
    detail = str(
        request.get("message") or request.get("placeholder") or request.get("prefill") or ""
    )
    return f"{title}\n\n{detail}".strip() if detail else title


def answer_fields(method: str, reply: str) -> dict[str, Any]:
    """The `extension_ui_response` fields that carry the human's reply to a dialog."""
    if method == "confirm":
        return {"confirmed": reply.strip().lower() in _YES}
    return {"value": reply}


def final_text(messages: Any) -> str:
    """The turn's answer: the text of its last assistant message (agent_end's list)."""
    for message in reversed(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        if message.get("stopReason") == "error":
            return f"pi stopped with an error: {message.get('errorMessage') or 'unknown'}"
        if message.get("stopReason") == "aborted":
            return "The turn was aborted before it finished."
        content = message.get("content")
        parts = content if isinstance(content, list) else []
        text = "\n".join(
            str(part.get("text", ""))
            for part in parts
            if isinstance(part, dict) and part.get("type") == "text"
        ).strip()
        if text:
            return text
    return "(pi ended the turn without a final answer)"

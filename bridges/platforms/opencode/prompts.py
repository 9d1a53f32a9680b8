"""What opencode's prompts say in the runtime's terms, and the decisions back in words.

A permission prompt (`permission.asked`) becomes an `Ask` whose action is the exact
thing approved: a shell command as the model wrote it (`metadata.command`), any
other permission its name and patterns (`edit: src/app.py`). The gateway binds the
decision to the action's SHA-256, and the bridge answers opencode only for that
exact text, so approving `rm *.o` never approves `rm -rf *.o`. opencode's own
"always" is never sent: it widens the grant to a pattern (`touch *`); the runtime
keeps "always allow" for the exact action instead, and the platform answers the
prompt with "once" each time the grant covers it.
"""

from __future__ import annotations

from typing import Any

from bridges.runtime.grants import ALWAYS
from bridges.runtime.platform import ANSWER, Resume
from bridges.runtime.subjects import run_question

APPROVING = {"approve", ALWAYS, "always"}
MAX_QUESTION = 900  # the permission mail's subject (the gateway takes 998)


def action_of(request: dict[str, Any]) -> str:
    permission = str(request.get("permission", ""))
    metadata = request.get("metadata") or {}
    patterns = [str(p) for p in request.get("patterns") or []]
    command = metadata.get("command") if isinstance(metadata, dict) else None
    if permission == "bash" and isinstance(command, str) and command:
        return command
    return f"{permission}: {' '.join(patterns)}".rstrip()


def question_of(request: dict[str, Any]) -> str:
    """What the permission mail asks: `run "npm test"?`, `edit src/app.py?`."""
    action = action_of(request)
    if str(request.get("permission", "")) == "bash" and action:
        return run_question(action)[:MAX_QUESTION]
    return f"{' '.join(action.replace(':', '', 1).split())}?"[:MAX_QUESTION]


def questions_of(request: dict[str, Any]) -> tuple[str, list[str]]:
    """The question tool's questions as one text, and the choices when there is one question."""
    items = [q for q in request.get("questions") or [] if isinstance(q, dict)]
    texts, choices = [], []
    for item in items:
        options = [o for o in item.get("options") or [] if isinstance(o, dict) and o.get("label")]
        choices = [str(o["label"]) for o in options]
        described = [f"- {o['label']}: {o['description']}" for o in options if o.get("description")]
        texts.append(
            "\n\n".join(
                [str(item.get("question", "")), *(["\n".join(described)] if described else [])]
            )
        )
    return "\n\n".join(texts), (choices if len(items) == 1 else [])


def approves(resume: Resume) -> bool:
    return resume.decision in APPROVING


def rejection_message(resume: Resume) -> str:
    """opencode shows it to the model as the rejection's feedback (and goes on)."""
    why = (
        "it expired: nobody decided in time"
        if resume.decision == "expired"
        else "the human rejected it"
    )
    return f"{why}; note: {resume.note}" if resume.note else why


def decision_note(resume: Resume, kind: str | None, text: str | None) -> str:
    """A decision said in words, for a turn run again after opencode forgot its prompt."""
    if resume.decision == ANSWER:
        asked = f' "{text}"' if text else ""
        return f"You asked the human{asked}. Their answer: {resume.note or '(empty)'}"
    what = f"`{text}`" if text else "the action you asked permission for"
    if approves(resume):
        note = f" (note: {resume.note})" if resume.note else ""
        return (
            f"Your request to run {what} was approved{note}. It has not run yet "
            "(opencode restarted while it waited): run it now if it is still needed; "
            "it will not be asked again."
        )
    return (
        f"Your request to run {what} was not approved ({rejection_message(resume)}): do not run it."
    )

"""A human's decision, given back to Claude Code: live, or after a restart.

Live, the session is still waiting in `can_use_tool`, and the decision is that
call's answer: approve or always → allow; reject or expired → deny, with a message
the model reads as the tool's result (the human's note in it), and the turn goes
on (`interrupt=False`: the model may do something else instead).

After a restart the prompt died with the old Claude Code process. The session is
resumed (its transcript shows the cut-off tool call as interrupted), and the
decision goes in as the next user message, in words; the same call asked again
is then answered from the decision, not put to the human a second time
(`Presets`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from claude_agent_sdk import PermissionResult, PermissionResultAllow, PermissionResultDeny

from bridges.platforms.claude.memory import PromptRecord
from bridges.runtime.grants import ALWAYS
from bridges.runtime.platform import ANSWER, Resume

ALLOWING = {"approve", ALWAYS, "always"}


def allows(resume: Resume) -> bool:
    return resume.decision in ALLOWING


def refusal(resume: Resume) -> str:
    """What the model reads when the human said no (or nobody decided in time)."""
    if resume.decision == "expired":
        said = "Nobody decided in time: the permission request expired."
    else:
        said = "The human rejected this action."
    if resume.note:
        said += f' Their note: "{resume.note}"'
    return f"{said} Do not run it; go on without it, or say in your answer what is left."


def permission_result(resume: Resume) -> PermissionResult:
    if allows(resume):
        return PermissionResultAllow()
    return PermissionResultDeny(message=refusal(resume), interrupt=False)


@dataclass
class Presets:
    """Decisions taken while the bridge was down, for the resumed session's calls."""

    actions: dict[str, PermissionResult] = field(default_factory=dict)  # used once each
    answers: dict[str, str] = field(default_factory=dict)  # question → answer


def after_restart(resume: Resume, prompt: PromptRecord | None) -> tuple[str, Presets]:
    """The decision in words for the resumed session, and the presets that carry it out."""
    presets = Presets()
    cut = (
        "(The bridge restarted while this waited for the human, so your last tool call "
        "was cut off and did not run.)"
    )
    if prompt is None:  # nothing known of the prompt: say what is known
        return f"{cut} The human's decision: {resume.decision}. {resume.note or ''}", presets
    if resume.decision == ANSWER:
        presets.answers[prompt.text] = resume.note or ""
        words = f'You asked the human: "{prompt.text}". Their answer: "{resume.note or ""}".'
        return f"{cut} {words} Go on with the task.", presets
    presets.actions[prompt.text] = permission_result(resume)
    if allows(resume):
        note = f' Their note: "{resume.note}"' if resume.note else ""
        words = f"The human approved `{prompt.text}`.{note} Run it now; it is allowed."
    else:
        words = f"About `{prompt.text}`: {refusal(resume)}"
    return f"{cut} {words}", presets

"""The subject lines of the mails a bridge sends for a task.

A human with several pending requests tells them apart in a mail client's list,
where only the subject shows: a permission request says that it needs a decision,
in which conversation (`#alias`, else the task's subject) and what it is for
(`[needs decision] #fix-login: run "npm test"?`); a question the same way. The
final summary answers the task as a reply does, `Re: <task subject>`, whatever a
platform later named the conversation (a title synced back renames it; the
mails keep the line the human's client threads and searches by).
"""

from __future__ import annotations

MAX_SUBJECT = 998  # RFC 5322 §2.1.1: a line is at most 998 characters (the gateway's limit)
MAX_WHAT = 200  # of a question's text in its subject: the mail's body has all of it
NEEDS_DECISION = "[needs decision]"
QUESTION = "[question]"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def run_question(command: str) -> str:
    """What a permission request for a shell command asks: `run "npm test"?`."""
    return f'run "{_cut(_one_line(command), MAX_WHAT)}"?'


def conversation_tag(alias: str | None, task_subject: str) -> str:
    """`#fix-login: `; the task's subject, quoted, for a conversation with no alias;
    nothing when neither is known."""
    if alias:
        return f"#{alias}: "
    subject = _cut(_one_line(task_subject), MAX_WHAT)
    return f'"{subject}": ' if subject else ""


def permission_subject(alias: str | None, task_subject: str, question: str) -> str:
    """`[needs decision] #fix-login: run "npm test"?` (once: a question that has the
    marker already is kept as it is)."""
    question = _one_line(question)
    if question.startswith(NEEDS_DECISION):
        return _cut(question, MAX_SUBJECT)
    tag = conversation_tag(alias, task_subject)
    return _cut(f"{NEEDS_DECISION} {tag}{question}", MAX_SUBJECT)


def question_subject(alias: str | None, task_subject: str, text: str) -> str:
    """`[question] #fix-login: Which branch?` (the question's first line, cut)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    tag = conversation_tag(alias, task_subject)
    return f"{QUESTION} {tag}{_cut(_one_line(first), MAX_WHAT)}"


def reply_subject(task_subject: str) -> str:
    """`Re: <task subject>` (RFC 5322 §3.6.5), not `Re: Re: …`; empty for a task
    without one (the gateway then gives the conversation's)."""
    subject = _one_line(task_subject)
    if not subject or subject.lower().startswith("re:"):
        return subject
    return _cut(f"Re: {subject}", MAX_SUBJECT)

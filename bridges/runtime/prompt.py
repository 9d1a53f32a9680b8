"""The one notification a platform gets for a mail, whichever way the mail came.

SSE delivery and catch-up use this same template (the homeagent lesson: two
templates with different wording revealed a double delivery). The platform gets
who, what and where, never the whole mail: the model reads it with `read_mail`
(MVP spec §5.3), so a long or hostile body does not become the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

INTERRUPTED_NOTE = (
    "Note: a previous turn for this mail was interrupted (the bridge restarted). "
    "Check what was already done before doing it again; replies you send are "
    "deduplicated, but other actions are not."
)


@dataclass(frozen=True, slots=True)
class MailNotice:
    mail_id: str
    session_id: str
    session_alias: str | None
    sender: str
    subject: str


def notification(notice: MailNotice, *, interrupted: bool) -> str:
    conversation = notice.session_alias or notice.session_id
    lines = [
        f'New mail from {notice.sender}: "{notice.subject}" (conversation {conversation}).',
        f'Read it with read_mail(mail_id="{notice.mail_id}"), do the work, and answer;',
        "your final answer is mailed back as the reply.",
    ]
    if interrupted:
        lines.insert(0, INTERRUPTED_NOTE)
    return "\n".join(lines)

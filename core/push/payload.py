"""What a push says: which request waits, from whom, where to open it.

A push is shown on a lock screen, so it names the request and never carries its
text: no command, no question, no subject, no mail body, and not the conversation's
alias either (an alias is often made from the subject, so from the question). The
browser fetches those after the person opens the URL and signs in.
"""

from __future__ import annotations

from typing import Any

PUSHED_TYPES = ("permission_request", "question")


def request_payload(kind: str, mail_id: str, session_id: str, sender: str) -> dict[str, Any]:
    """`url` is a path of the web UI: Needs decision for a request, the inbox for a question.
    The notification names the conversation by its id's first 8 characters (web/public/sw.js),
    as the web UI shows an unnamed one."""
    where = "decisions" if kind == "permission_request" else "inbox"
    return {
        "kind": kind,
        "agent": sender,
        "session_id": session_id,
        "mail_id": mail_id,
        "url": f"/{where}/{mail_id}",
    }

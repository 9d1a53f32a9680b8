"""Mails as a model reads them: the fields that help it act, bodies bounded.

The gateway's views carry more (email forms, IMAP flags, sequence numbers);
a model needs the addresses to answer, the conversation, the text and, for a
permission request, its state. Long bodies are cut with a note saying how to
read the rest, so one listing cannot flood the model's context. A mail from outside
has its subject and body fenced as untrusted input (untrusted.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from bridges.tools.definition import Json
from bridges.tools.untrusted import fenced, untrusted_notice

LISTED_BODY_CHARS = 4_000
FULL_BODY_CHARS = 200_000
_FIELDS = (
    "mail_id",
    "session_id",
    "session_alias",
    "parent_mail_id",
    "depth",
    "from",
    "to",
    "cc",
    "to_workspace",
    "subject",
    "mail_type",
    "auto",
    "status",
    "created_at",
)
_PERMISSION_FIELDS = (
    "options",
    "permission_state",
    "decision",
    "decision_note",
    "decided_by",
    "decided_at",
    "expires_at",
    "action",
)


def _bounded(body: str, limit: int, mail_id: str) -> str:
    if len(body) <= limit:
        return body
    return (
        body[:limit]
        + f"\n\n[… {len(body) - limit} more characters: read_mail('{mail_id}') shows them]"
    )


def as_json(model: BaseModel) -> Json:
    """A client model as the gateway sent it (`from`, not `from_`; times as text)."""
    return model.model_dump(mode="json", by_alias=True)


def mail_for_model(model: BaseModel, body_limit: int = LISTED_BODY_CHARS) -> Json:
    mail = as_json(model)
    shown: dict[str, Any] = {key: mail[key] for key in _FIELDS if mail.get(key) is not None}
    body = mail.get("body")
    if body is None:
        shown["body_preview"] = mail.get("body_preview", "")
    else:
        shown["body"] = _bounded(body, body_limit, mail["mail_id"])
    if mail.get("attachments"):
        shown["attachments"] = [
            {key: item[key] for key in ("attachment_id", "filename", "size")}
            for item in mail["attachments"]
        ]
    if mail.get("mail_type") == "permission_request":
        shown.update({key: mail.get(key) for key in _PERMISSION_FIELDS})
    external = mail.get("external")
    if external:
        shown["external"] = external
        shown["untrusted"] = untrusted_notice(external)
        shown["subject"] = fenced(shown.get("subject", ""))
        for key in ("body", "body_preview"):
            if key in shown:
                shown[key] = fenced(shown[key])
    return shown


def sent_for_model(model: BaseModel) -> Json:
    """What a send or forward answers, trimmed to what the model may use next."""
    result = as_json(model)
    keys = ("mail_id", "session_id", "session_alias", "budget_remaining")
    return {key: result.get(key) for key in keys}

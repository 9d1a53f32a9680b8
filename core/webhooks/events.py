"""Which gateway events an endpoint hears, under which webhook type, saying what.

The gateway's events (core/store/events.py) are rows per recipient; a webhook tells of
one of them. A person's endpoint hears the events addressed to its owner; an admin's
hears everyone's, each change once (the rows one change wrote for several recipients
are one webhook, naming them all).

A payload says what happened by ids and short fields only: no mail body, no question's
text, no decision note. A receiver that needs more reads it through the API with a
key of the endpoint's owner, so it gets no more than the owner may read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from core.store.bus import Pushed

# The webhook event types, and which of a gateway event's fields each carries.
MAIL_RECEIVED: Final = "mail.received"
PERMISSION_REQUESTED: Final = "permission.requested"
PERMISSION_DECIDED: Final = "permission.decided"
QUESTION_ASKED: Final = "question.asked"
CONVERSATION_UPDATED: Final = "conversation.updated"
EVENT_TYPES: Final = (
    MAIL_RECEIVED,
    PERMISSION_REQUESTED,
    PERMISSION_DECIDED,
    QUESTION_ASKED,
    CONVERSATION_UPDATED,
)
_MAIL_FIELDS = (
    "mail_id",
    "session_id",
    "session_alias",
    "from",
    "to",
    "cc",
    "subject",
    "mail_type",
    "created_at",
)
_FIELDS: Final = {
    "new_mail": _MAIL_FIELDS,
    "permission_decision": (
        "mail_id",
        "session_id",
        "state",
        "decision",
        "decided_by",
        "decided_at",
    ),
    "session_update": (
        "session_id",
        "session_alias",
        "subject",
        "status",
        "budget_limit",
        "budget_used",
        "updated_at",
    ),
}
_NEW_MAIL_TYPES: Final = {
    "permission_request": PERMISSION_REQUESTED,
    "question": QUESTION_ASKED,
}


@dataclass(frozen=True, slots=True)
class Told:
    """One webhook event: its type, its `data`, and the event row of each person that
    change was addressed to (the id they see on their SSE stream)."""

    type: str
    data: dict[str, Any]
    rows: dict[str, int]  # recipient → event id

    @property
    def event_id(self) -> int:
        """The first row's: the id an admin's endpoint names the change by."""
        return min(self.rows.values())


def webhook_type(event_type: str, payload: dict[str, Any]) -> str | None:
    if event_type == "new_mail":
        return _NEW_MAIL_TYPES.get(str(payload.get("mail_type")), MAIL_RECEIVED)
    if event_type == "permission_decision":
        return PERMISSION_DECIDED
    if event_type == "session_update":
        return CONVERSATION_UPDATED
    return None  # agent_online, and events of no interest outside


def told(events: list[Pushed]) -> list[Told]:
    """One transaction's event rows as webhook events: the rows of one change (its type
    and payload) become one."""
    grouped: dict[tuple[str, str], Told] = {}
    for recipient, event in events:
        type_ = webhook_type(event.type, event.payload)
        if type_ is None:
            continue
        key = (event.type, json.dumps(event.payload, sort_keys=True, default=str))
        if key not in grouped:
            data = {f: event.payload.get(f) for f in _FIELDS[event.type]}
            grouped[key] = Told(type_, data, {})
        grouped[key].rows.setdefault(recipient, event.id)
    return list(grouped.values())


def body(told_event: Told, event_id: int, timestamp: str, *, everyone: bool) -> dict[str, Any]:
    """The JSON a receiver gets (the Standard Webhooks shape: type, timestamp, data)."""
    data = dict(told_event.data)
    if everyone:
        data["recipients"] = list(told_event.rows)
    return {"type": told_event.type, "timestamp": timestamp, "event_id": event_id, "data": data}

"""What the gateway answers, as the client sees it (docs/api.md is the contract).

The bridges import nothing of the server, so these are the client's own models of
the JSON: fields a bridge relies on are typed; everything else a newer gateway adds
is kept (`extra="allow"`) and never refused, as the API promises older clients.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Budget = int | Literal["unlimited"]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Workspace(Model):
    name: str
    path: str = ""


class AddressedWorkspace(Model):
    """The agent workspace a mail is addressed to; `path` null if removed since."""

    name: str
    path: str | None = None


class AttachmentRef(Model):
    attachment_id: str
    filename: str
    size: int
    sha256: str


class Attachment(AttachmentRef):
    content_type: str = "application/octet-stream"


class ExternalContent(Model):
    """Set on a mail that came from outside the gateway (docs/api.md)."""

    sender: str = ""
    authentication_results: str | None = None


class Mail(Model):
    mail_id: str
    session_id: str
    session_alias: str | None = None
    parent_mail_id: str | None = None
    from_: str = Field(alias="from")
    from_email: str = ""
    to: str
    to_email: str = ""
    to_workspace: AddressedWorkspace | None = None
    cc: list[str] = Field(default_factory=list)
    subject: str = ""
    body: str | None = None
    body_preview: str = ""
    mail_type: str = "normal"
    auto: bool = False
    message_id: str = ""
    created_at: datetime
    status: Literal["unread", "read", "archived", "deleted"] | None = None
    options: list[str] | None = None
    permission_state: Literal["open", "decided", "expired"] | None = None
    decision: str | None = None
    decision_note: str | None = None
    decided_by: str | None = None
    expires_at: datetime | None = None
    action: str | None = None
    action_sha256: str | None = None
    attachments: list[AttachmentRef] = Field(default_factory=list)
    external: ExternalContent | None = None  # from outside the gateway: untrusted input


class MailList(Model):
    mails: list[Mail]
    total: int


class SendResult(Model):
    mail_id: str
    session_id: str
    session_alias: str | None = None
    message_id: str = ""
    budget_limit: Budget = "unlimited"
    budget_used: int = 0
    budget_remaining: Budget = "unlimited"
    created_at: datetime
    replayed: bool = Field(
        False, exclude=True, description="The gateway answered an earlier send's result."
    )


class AgentInfo(Model):
    agent_id: str
    agent_name: str
    workspaces: list[Workspace] = Field(default_factory=list)
    platform: str = ""
    status: str = "offline"


class Registered(Model):
    agent_id: str
    agent: AgentInfo
    agent_key: str | None = None


class WaitingSession(Model):
    session_id: str
    session_alias: str | None = None
    unread: int = 0


class Heartbeat(Model):
    status: str
    pending_mails: int = 0
    sessions: list[WaitingSession] = Field(default_factory=list)


class Session(Model):
    session_id: str
    session_alias: str | None = None
    subject: str = ""
    status: Literal["active", "waiting", "completed"] = "active"
    budget_limit: Budget = "unlimited"
    budget_used: int = 0
    budget_remaining: Budget = "unlimited"
    participants: list[str] = Field(default_factory=list)


class SessionDetail(Model):
    session: Session
    mails: list[Mail]


class TreeChunk(Model):
    mail_id: str
    direction: str
    mails: list[Mail]
    root_mail_id: str | None = None
    next_cursor_up: str | None = None
    next_cursor_down: str | None = None


class Candidate(Model):
    address: str
    email: str = ""
    kind: str = ""
    description: str = ""
    session_id: str | None = None


class Contact(Model):
    name: str
    kind: str
    address: str
    email: str = ""
    status: str | None = None
    shared_sessions: int = 0


class Participants(Model):
    session_id: str
    session_alias: str | None = None
    participants: list[dict[str, Any]] = Field(default_factory=list)


class Event(Model):
    """One SSE event: `id` is the gateway's event id (the resume cursor), `type` its
    `event:` field (`new_mail`, `permission_decision`, `session_update`,
    `agent_online`, `resync`), `data` its JSON payload."""

    id: int | None
    type: str
    data: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def parse(cls, event_id: str | None, event_type: str, data: str) -> Event:
        payload = json.loads(data) if data.strip() else {}
        number = int(event_id) if event_id and event_id.isdigit() else None
        return cls(id=number, type=event_type or "message", data=payload)

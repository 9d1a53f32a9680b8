"""What the domain hands out: plain pydantic models, also the API's response schemas.

Addresses are native strings (`from`, `to`, `cc`) with the email form beside
them (`from_email`, ...), as ARCHITECTURE.md's contract says.

Imports only pydantic: every layer of core, and the API, may import the views.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

Budget = int | Literal["unlimited"]
MAX_BUDGET = 1_000_000
BUDGET_RULE = f'budget must be a number from 1 to {MAX_BUDGET:,} or "unlimited"'


def _budget_input(value: object) -> int | str:
    """One clear message instead of pydantic's dump of both union branches."""
    if value == "unlimited":
        return "unlimited"
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_BUDGET:
        return value
    raise PydanticCustomError("budget", BUDGET_RULE)


# What clients may ask for: a number of rounds in range, or "unlimited".
BudgetInput = Annotated[
    Budget,
    PlainValidator(_budget_input),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET},
                {"type": "string", "const": "unlimited"},
            ]
        }
    ),
]


class View(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class UserView(View):
    user_id: str
    name: str
    address: str
    email: str
    is_admin: bool
    outbound_mail: bool = False  # may send mail outside (docs/external-mail.md)
    created_at: datetime


class WorkspaceView(View):
    name: str
    path: str
    address: str
    email: str


class AgentView(View):
    agent_id: str
    agent_name: str
    workspaces: list[WorkspaceView]
    platform: str
    status: Literal["online", "offline"]
    last_seen: datetime | None
    default_budget: Budget
    outbound_mail: bool = False
    created_at: datetime


class KeyView(View):
    key_id: str
    kind: Literal["agent", "user"]
    label: str
    lifecycle: Literal["permanent", "one_time", "timed"]
    owner: str | None = Field(description="The user, or the agent the key is bound to.")
    active: bool
    expires_at: datetime | None
    used_at: datetime | None
    revoked_at: datetime | None
    created_at: datetime


class IssuedKey(View):
    key_id: str
    key: str | None = Field(description="The key itself: shown once, never stored.")
    lifecycle: Literal["permanent", "one_time", "timed"]
    expires_at: datetime | None


class LatestMail(View):
    """The newest mail of a conversation the viewer may see, for a list row."""

    mail_id: str
    from_: str = Field(alias="from", serialization_alias="from")
    excerpt: str
    created_at: datetime


class TaskProgress(View):
    """The Markdown task list of a conversation's newest mail that has one."""

    mail_id: str
    done: int
    total: int


class ParticipantBrief(View):
    name: str
    kind: Literal["human", "agent"]
    online: bool


class SessionView(View):
    session_id: str
    session_alias: str | None
    subject: str
    status: Literal["active", "waiting", "completed"]
    budget_limit: Budget
    budget_used: int
    budget_remaining: Budget
    participants: list[str]
    created_by: str
    mail_count: int
    created_at: datetime
    updated_at: datetime
    latest: LatestMail | None = None
    unread: int = Field(0, description="Its mails delivered to you and unread (not in Trash).")
    tasks: TaskProgress | None = Field(
        None, description="The task list of its newest mail you may see that has one."
    )
    participant_details: list[ParticipantBrief] = Field(
        default_factory=list, description="`participants` with their kind and presence."
    )


class ActivityItem(View):
    """One thing an agent did, for its page: a mail it sent (core/mail/agent_activity.py)."""

    mail_id: str
    session_id: str
    session_alias: str | None
    subject: str
    mail_type: str
    excerpt: str = Field(description="The start of the body as one plain line.")
    created_at: datetime
    permission_state: str | None = Field(
        None, description="A permission request's state: open, decided or expired."
    )
    decision: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None


class AttachmentRef(View):
    """An attachment as a mail lists it; download it by `attachment_id`."""

    attachment_id: str
    filename: str
    size: int
    sha256: str


class AttachmentView(AttachmentRef):
    """An upload: `content_type` is what the uploader declared (downloads ignore it)."""

    content_type: str


class AddressedWorkspace(View):
    """The agent workspace a mail is addressed to (`to`), so a bridge need not parse it."""

    name: str
    path: str | None = Field(description="Its registered path; null if removed since.")


class ExternalContent(View):
    """A mail that came from outside the gateway: what its content is worth."""

    sender: str = Field(description="Who it says it is from, `mailto:x@example.com`.")
    authentication_results: str | None = Field(
        None,
        description="The Authentication-Results (RFC 8601) this gateway recorded when the"
        " mail came in from the internet; null when it evaluated none (imported mail).",
    )


OutsideReason = Literal[
    "verified",
    "other_address",
    "no_domain_proof",
    "already_used",
    "address_gone",
    "not_a_reply",
    "other",
]


class OutsideMark(View):
    """What the gateway found of a mail it stored from outside (an `outside_replies`
    row: core/replies/inbound.py): whether it was proven, whether it decided, and why not."""

    sender: str = Field(description="The From address as written.")
    verified: bool = Field(description="All the checks held (the reason is `verified`).")
    decided: bool = Field(description="It decided a permission request or a question.")
    reason: str = Field(description="`verified`, or why it is not a decision (English).")
    reason_code: OutsideReason = Field(
        description="The reason as a stable word, for a client to say in its language."
    )
    authentication_results: str = Field(description="The Authentication-Results recorded.")


class MailView(View):
    mail_id: str
    seq: int
    session_id: str
    session_alias: str | None
    parent_mail_id: str | None
    from_: str = Field(alias="from", serialization_alias="from")
    from_email: str
    to: str
    to_email: str
    to_workspace: AddressedWorkspace | None = Field(
        None, description="The agent workspace `to` names; null for a human or a role."
    )
    cc: list[str]
    cc_email: list[str]
    subject: str
    body: str | None = Field(None, description="Full Markdown body (omitted in listings).")
    body_preview: str = Field(description="The body as plain text, at most 200 characters.")
    tasks_done: int = Field(0, description="Its Markdown task-list items checked (`- [x]`).")
    tasks_total: int = Field(0, description="Its Markdown task-list items, checked or not.")
    mail_type: str
    auto: bool
    message_id: str
    created_at: datetime
    # The caller's delivery, when the caller is a recipient.
    delivery: Literal["to", "cc"] | None = None
    status: Literal["unread", "read", "archived", "deleted"] | None = None
    folder_id: str | None = Field(
        None,
        description="The folder of your own the mail is filed in (`GET /me/folders`); it "
        "is `archived` there, and stays filed while in Trash.",
    )
    # IMAP's \\Flagged and \\Answered, kept per recipient (null when not a recipient).
    flagged: bool | None = None
    answered: bool | None = None
    keywords: list[str] | None = Field(
        None,
        description="Your IMAP keywords on it (`$Label1`, `$Junk`, …), sorted; null when "
        "you are not a recipient (and in tree chunks, which leave them out).",
    )
    # Permission requests.
    options: list[str] | None = None
    permission_state: Literal["open", "decided", "expired"] | None = None
    decision: str | None = None
    decision_note: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    expires_at: datetime | None = None
    action: str | None = None
    action_sha256: str | None = None
    attachments: list[AttachmentRef] = Field(default_factory=list)
    external: ExternalContent | None = Field(
        None,
        description="Set when the mail came from outside the gateway: untrusted input, to"
        " be shown to a model as such (docs/bridges.md); null for mail from inside.",
    )
    outside: OutsideMark | None = Field(
        None,
        description="Set on one mail read alone (`GET …/mail/{mail_id}`) when the mail came"
        " in from outside as a reply or a mail to you: not verified means it decided nothing.",
    )


class FolderView(View):
    """A folder of a person's own (core/mailboxes/personal.py)."""

    folder_id: str
    name: str
    messages: int
    unread: int


class FolderList(View):
    folders: list[FolderView]


class FolderDeleted(View):
    folder_id: str
    moved_to_archive: int = Field(description="How many mails went to Archive.")


class MailList(View):
    mails: list[MailView]
    total: int


class HeldRecipients(View):
    """An agent's outside recipients not on its allowlist: not sent until a human
    approves the permission request `request_id` (docs/external-mail.md)."""

    recipients: list[str]
    request_id: str


class SendResult(View):
    mail_id: str
    session_id: str
    session_alias: str | None
    message_id: str
    budget_limit: Budget
    budget_used: int
    budget_remaining: Budget
    created_at: datetime
    held: HeldRecipients | None = Field(
        None,
        description="Outside recipients held for a human's decision (an agent's, off its"
        " outbound allowlist); the others were queued at once.",
    )


class SessionDetail(View):
    session: SessionView
    mails: list[MailView]


class TreeMail(MailView):
    depth: int = Field(
        description="Steps from the mail asked about: 0 is that mail, -1 its parent, 1 a reply."
    )


class TreeChunk(View):
    mail_id: str = Field(description="The mail the chunk is around; depths count from it.")
    direction: Literal["ancestors", "descendants", "around"]
    mails: list[TreeMail] = Field(
        description="Reading order: ancestors root-side first, then the mail (around only), "
        "then descendants depth-first, replies oldest first. Only mails you may see."
    )
    root_mail_id: str | None = Field(
        description="The root of the tree, when this chunk's walk up reached it; else null."
    )
    next_cursor_up: str | None = Field(
        description="Pass with direction=ancestors for the next chunk up; null when done."
    )
    next_cursor_down: str | None = Field(
        description="Pass with direction=descendants for the next chunk down; null when done."
    )


class LoginView(View):
    """A web login (a browser's session cookie), as its user sees it in `GET /me/logins`."""

    login_id: str
    user_agent: str
    created_at: datetime
    last_used_at: datetime | None = Field(description="Written at most once a minute.")
    expires_at: datetime | None
    current: bool = Field(description="The login this request came with.")


class SearchHit(MailView):
    """A mail found by search: the inbox's mail view and where the words matched."""

    snippet: str


class SearchResults(View):
    mails: list[SearchHit]
    total: int
    # False: more than `total` mails match (counting stops there), listed newest first.
    total_exact: bool = True


# Whether and where a send would go: kept in views/addressing.py.
from core.views.addressing import AddressCheck as AddressCheck  # noqa: E402
from core.views.addressing import AddressReach as AddressReach  # noqa: E402
from core.views.addressing import ErrorView as ErrorView  # noqa: E402
from core.views.addressing import ReachedConversation as ReachedConversation  # noqa: E402

# A person's own settings: kept in views/personal.py, named here like every view.
from core.views.personal import ExternalAddressView as ExternalAddressView  # noqa: E402
from core.views.personal import PushSubscriptionView as PushSubscriptionView  # noqa: E402

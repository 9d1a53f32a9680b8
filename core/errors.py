"""Domain errors.

They know nothing of HTTP, SMTP or IMAP: each carries a stable snake_case `code`
and a human-readable message; every transport maps them to its own replies
(`api/errors.py` to status codes, later `smtp_in` to 5xx/4xx, `imap_view` to NO).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

# What is wrong with one input, in words a client can translate (docs/api.md "Errors").
FieldCode = Literal[
    "missing",  # required and absent
    "too_long",  # text, a list or a file over `limit` characters, items or bytes
    "too_short",  # text or list under `limit` characters or items
    "too_large",  # a number over `limit`
    "too_small",  # a number under `limit`
    "format",  # not of the form this field takes (a pattern, one line, a duration)
    "type",  # a value of the wrong type
    "choice",  # not one of the values this field takes
    "unknown",  # no such field
    "invalid",  # refused for a reason of its own
    "wrong",  # does not match what the gateway holds (a current password)
    "taken",  # in use already
    "reserved",  # a name the gateway keeps for itself
]


@dataclass(frozen=True)
class FieldProblem:
    """One input a refusal is about: its dotted name, what is wrong, and the bound."""

    field: str
    code: FieldCode
    limit: int | None = None


class DomainError(Exception):
    """Base of every error the domain raises on purpose."""

    code: ClassVar[str] = "error"

    def __init__(self, message: str, *fields: FieldProblem) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields


class InvalidAddress(DomainError, ValueError):
    """An address string does not follow the grammar in ARCHITECTURE.md."""

    code = "invalid_address"


class InvalidRequest(DomainError):
    """The request is well-formed but its content cannot be accepted."""

    code = "invalid_request"


class UnknownRecipient(DomainError):
    """No human or agent has this name: the mail is undeliverable."""

    code = "unknown_recipient"


class UnknownWorkspace(DomainError):
    """The agent exists but has no registered workspace of that name or path."""

    code = "unknown_workspace"


class WorkspaceConflict(DomainError):
    """A workspace change that would make an address ambiguous or strand open work."""

    code = "workspace_conflict"


class UnknownAlias(DomainError):
    """No conversation has this alias; we never create one silently."""

    code = "unknown_alias"


class NotFound(DomainError):
    code = "not_found"


class AuthenticationFailed(DomainError):
    code = "unauthorized"


class Forbidden(DomainError):
    code = "forbidden"


class NameTaken(DomainError):
    """Names are unique across humans and agents together."""

    code = "name_taken"


class LimitReached(DomainError):
    """A count the gateway bounds would be passed (a person's folders, their depth)."""

    code = "limit_reached"


class AlreadyDecided(DomainError):
    """A permission request is decided once."""

    code = "already_decided"


class InvalidDecision(DomainError):
    """The decision is not one of the request's options."""

    code = "invalid_decision"


class BudgetExhausted(DomainError):
    """The conversation's round-trip budget is used up; a human must raise it."""

    code = "budget_exhausted"


class HopLimitReached(DomainError):
    """Too many mails between agents with no human in between: a loop is stopped."""

    code = "hop_limit_reached"


class DraftChanged(DomainError):
    """A draft was saved again while it was being sent; the older version was not sent."""

    code = "draft_changed"


class PayloadTooLarge(DomainError):
    """An upload over its limit; the partial content is already removed."""

    code = "payload_too_large"


class StorageFull(DomainError):
    """The disk (or the database server's) has no room for the write; nothing of it
    was kept, and the same request succeeds once space is freed (core/store/disk_full.py)."""

    code = "storage_full"


class StorageUnavailable(DomainError):
    """The store of the content (the object store of the attachments) cannot be reached
    or failed: nothing of the request was kept, and the same request succeeds once it
    answers again."""

    code = "storage_unavailable"


class RateLimited(DomainError):
    code = "rate_limited"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AutoNotAllowed(DomainError):
    """`auto` (a bridge's auto-forward, no round) on a mail that may not carry it."""

    code = "auto_not_allowed"


class IdempotencyKeyReused(DomainError):
    """An `Idempotency-Key` sent again with a different request: the key names the
    first request only (draft-ietf-httpapi-idempotency-key-header §2.6)."""

    code = "idempotency_key_reused"


class OutboundNotAllowed(DomainError):
    """A mail to an outside (`mailto:`) recipient from a sender an admin has not enabled
    for outbound mail, or while the gateway has no smarthost; nothing was stored."""

    code = "outbound_not_allowed"


ALL_DOMAIN_ERRORS: tuple[type[DomainError], ...] = (
    InvalidAddress,
    InvalidRequest,
    UnknownRecipient,
    UnknownWorkspace,
    WorkspaceConflict,
    UnknownAlias,
    NotFound,
    AuthenticationFailed,
    Forbidden,
    NameTaken,
    LimitReached,
    AlreadyDecided,
    InvalidDecision,
    BudgetExhausted,
    HopLimitReached,
    DraftChanged,
    PayloadTooLarge,
    StorageFull,
    StorageUnavailable,
    RateLimited,
    AutoNotAllowed,
    IdempotencyKeyReused,
    OutboundNotAllowed,
)

"""Domain errors as IMAP `NO` replies: one table, like `api/errors.py` for HTTP.

Response codes are RFC 5530's (`AUTHENTICATIONFAILED`, `NONEXISTENT`, `NOPERM`,
`ALREADYEXISTS`, `LIMIT`, `OVERQUOTA`, `UNAVAILABLE`, `CANNOT`, `CLIENTBUG`, `INUSE`), so a
client can tell "wrong password" from "try later" from "never".
"""

from __future__ import annotations

import logging

from pymap.exceptions import ResponseError
from pymap.parsing.response import ResponseCode, ResponseNo

from core import errors as domain
from core.store.transient import is_transient

log = logging.getLogger("agentmail.imap")

__all__ = ["CODES", "DomainRefusal", "failure_refusal", "refusal_for"]

CODES: dict[type[domain.DomainError], bytes] = {
    domain.InvalidAddress: b"CLIENTBUG",
    domain.InvalidRequest: b"CANNOT",
    domain.UnknownRecipient: b"NONEXISTENT",
    domain.UnknownWorkspace: b"NONEXISTENT",
    domain.UnknownAlias: b"NONEXISTENT",
    domain.NotFound: b"NONEXISTENT",
    domain.AuthenticationFailed: b"AUTHENTICATIONFAILED",
    domain.Forbidden: b"NOPERM",
    domain.NameTaken: b"ALREADYEXISTS",
    domain.LimitReached: b"LIMIT",
    domain.WorkspaceConflict: b"CANNOT",
    domain.AlreadyDecided: b"CANNOT",
    domain.InvalidDecision: b"CANNOT",
    domain.BudgetExhausted: b"LIMIT",
    domain.HopLimitReached: b"LIMIT",
    domain.DraftChanged: b"INUSE",
    domain.PayloadTooLarge: b"LIMIT",
    # RFC 5530 §3: the operation would put the store over its space; try later.
    domain.StorageFull: b"OVERQUOTA",
    # RFC 5530 §3: a subsystem is down; the same command may succeed later.
    domain.StorageUnavailable: b"UNAVAILABLE",
    domain.RateLimited: b"UNAVAILABLE",
    domain.AutoNotAllowed: b"CANNOT",
    domain.IdempotencyKeyReused: b"CANNOT",
    domain.OutboundNotAllowed: b"NOPERM",
}


class DomainRefusal(ResponseError):
    """A pymap error that answers `NO [CODE] reason` for a domain error."""

    def __init__(self, code: bytes, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        # One line: a CR or LF would end the response early (RFC 3501 §9, resp-text).
        self.reason = " ".join(reason.split())

    def get_response(self, tag: bytes) -> ResponseNo:
        return ResponseNo(tag, self.reason.encode(), ResponseCode.of(self.code))


def refusal_for(exc: domain.DomainError) -> DomainRefusal:
    code = next(c for cls, c in CODES.items() if isinstance(exc, cls))
    reason = exc.message
    if isinstance(exc, domain.RateLimited) and f"{exc.retry_after} s" not in reason:
        reason += f" (retry after {exc.retry_after} s)"  # said once
    return DomainRefusal(code, reason)


def failure_refusal(error: BaseException, what: str) -> DomainRefusal:
    """`NO` for an error no table names, instead of pymap's `BYE [SERVERBUG]`:
    `[UNAVAILABLE]` when a retry may succeed (core/store/transient.py), else
    `[CANNOT]` (the same command fails again). Logged with its stack; its text not sent."""
    if isinstance(error, domain.DomainError):
        return refusal_for(error)
    if is_transient(error):
        log.error("%s failed (temporary)", what, exc_info=error)
        return DomainRefusal(b"UNAVAILABLE", f"{what} failed for now; try again later")
    log.error("%s failed (permanent)", what, exc_info=error)
    return DomainRefusal(b"CANNOT", f"{what} failed: the gateway cannot store this message")

"""Domain errors as SMTP replies: one table, like `api/errors.py` for HTTP.

Reply codes follow RFC 5321 §4.2 (4xx: try again later; 5xx: do not) and the
enhanced status codes RFC 3463 (`X.1.1` bad mailbox, `X.1.3` bad address
syntax, `X.7.1` refused by policy, `X.5.4` bad command arguments, `X.3.1` mail
system full).
"""

from __future__ import annotations

import logging

from core import errors as domain
from core.store.transient import is_transient

log = logging.getLogger("agentmail.smtp")

REPLIES: dict[type[domain.DomainError], tuple[int, str]] = {
    domain.InvalidAddress: (501, "5.1.3"),
    domain.InvalidRequest: (550, "5.6.0"),
    domain.UnknownRecipient: (550, "5.1.1"),
    domain.UnknownWorkspace: (550, "5.1.1"),
    domain.UnknownAlias: (550, "5.1.1"),
    domain.NotFound: (550, "5.1.1"),
    domain.AuthenticationFailed: (535, "5.7.8"),
    domain.Forbidden: (550, "5.7.1"),
    domain.NameTaken: (550, "5.7.1"),
    domain.WorkspaceConflict: (550, "5.7.1"),
    domain.AlreadyDecided: (550, "5.7.1"),
    domain.InvalidDecision: (550, "5.7.1"),
    # Permanent: only a human raising the budget changes the answer.
    domain.BudgetExhausted: (550, "5.7.1"),
    domain.HopLimitReached: (550, "5.7.1"),
    domain.LimitReached: (552, "5.3.4"),
    # The draft changed under the send: trying again sends the new version.
    domain.DraftChanged: (451, "4.3.0"),
    domain.PayloadTooLarge: (552, "5.3.4"),
    # RFC 5321 §4.2.3 "insufficient system storage", RFC 3463 X.3.1 "mail system full":
    # transient, so the client keeps the message and tries again later.
    domain.StorageFull: (452, "4.3.1"),
    # The object store away: nothing was stored; RFC 3463 X.3.0 "other mail system status".
    domain.StorageUnavailable: (451, "4.3.0"),
    domain.RateLimited: (451, "4.7.1"),
    domain.AutoNotAllowed: (550, "5.7.1"),
    domain.IdempotencyKeyReused: (550, "5.7.1"),
    domain.OutboundNotAllowed: (550, "5.7.1"),
}


def _one_line(text: str) -> str:
    """A reason on one reply line: CR/LF would end the reply early (RFC 5321 §4.2)."""
    return " ".join(text.split())


def reply_for(exc: domain.DomainError) -> str:
    """The SMTP reply line for a domain error, with its reason a human can read."""
    code, enhanced = next(r for cls, r in REPLIES.items() if isinstance(exc, cls))
    reason = _one_line(exc.message)
    if isinstance(exc, domain.RateLimited) and f"{exc.retry_after} s" not in reason:
        reason += f" (try again in {exc.retry_after} s)"  # said once
    return f"{code} {enhanced} {reason}"


# Not stored, for a reason that may pass (core/store/transient.py): the client retries.
TRY_AGAIN = "451 4.3.0 the message could not be stored; try again later"
# Not stored, and the same message never will be: the client gives up and says so.
CANNOT_STORE = "550 5.6.0 the message cannot be stored: the gateway failed on it"


def failure_reply(error: BaseException, what: str = "storing a submitted message") -> str:
    """The reply for an error no table above names: `451` when a retry may succeed,
    else `550 5.6.0` (a client would retry a 4xx for days). Logged with its stack;
    its text is not sent."""
    if isinstance(error, domain.DomainError):
        return reply_for(error)
    transient = is_transient(error)
    log.error("%s failed (%s)", what, "temporary" if transient else "permanent", exc_info=error)
    return TRY_AGAIN if transient else CANNOT_STORE

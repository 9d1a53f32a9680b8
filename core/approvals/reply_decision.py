"""A reply by mail that decides a permission request, in the transaction storing the reply.

ARCHITECTURE.md: replying with an option on the first non-quoted line decides a
request exactly as the web button does. The decision goes through
`core.approvals.permissions.decide_in`, the web route's own function, so the state change,
the `permission_decision` events and the conversation status are the same. The
reply is stored first, as the ordinary reply it also is; both commit together or
not at all. A reply that would decide a request already decided or expired
decides nothing: its human gets a postmaster notice saying what happened instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy.orm import Session

from core.approvals.decide_by_mail import Answer, named_option, reply_answer
from core.approvals.permissions import decide_in, lock_request
from core.approvals.postmaster import already_settled_notice, write_notice
from core.errors import AlreadyDecided
from core.mail.send import MailWrite
from core.principal import Principal
from core.views import SendResult

__all__ = ["settle_reply", "with_reply_decision"]

# Up to this many characters a reply is read on the event loop (a few ms at the worst).
_INLINE_CHARS = 4_096


async def with_reply_decision(
    writes: Sequence[MailWrite],
    domain: str,
    principal: Principal,
    replied_id: str | None,
    text: str,
) -> list[MailWrite]:
    """`writes` (the mails of one reply), the first also deciding what the reply decides.

    One submitted message may become several mails (one per target conversation);
    the decision belongs to the message, so it rides on the first mail only. The
    text is read here, before the transaction (on PostgreSQL the transaction's
    function runs on the event loop); a long one in a worker thread.
    """
    if replied_id is None or not principal.is_human or not writes:
        return list(writes)
    if len(text) <= _INLINE_CHARS:
        answer = reply_answer(text)
    else:
        answer = await asyncio.to_thread(reply_answer, text)
    if answer is None:
        return list(writes)
    first, *rest = writes

    def run(session: Session) -> SendResult:
        stored = first(session)
        settle_reply(session, domain, principal, replied_id, answer, stored.mail_id)
        return stored

    return [run, *rest]


def settle_reply(
    session: Session,
    domain: str,
    principal: Principal,
    replied_id: str,
    answer: Answer,
    reply_id: str,
) -> None:
    """Decide the request `replied_id` if the reply `reply_id` (by `principal`) names
    one of its options on its first line; a notice if it came too late; else nothing."""
    # Locked (after its conversation, the one lock order) and re-read: storing the reply
    # loaded this row before, and a decision committed since (the web button) must be
    # seen, or it would be made twice.
    request = lock_request(session, replied_id)
    if (
        request is None
        or request.mail_type != "permission_request"
        or request.to_name != principal.name
    ):
        return  # not a request, or not this human's to decide: an ordinary reply
    option = named_option(request.options or [], answer.first_line)
    if option is None:
        return
    try:
        decide_in(session, principal, request.id, option, answer.note)
    except AlreadyDecided:
        subject, body = already_settled_notice(request)
        write_notice(
            session,
            domain,
            to=principal.name,
            conversation_id=request.session_id,
            parent_id=reply_id,
            subject=subject,
            body=body,
        )

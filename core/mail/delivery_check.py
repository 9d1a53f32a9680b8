"""Deciding a recipient before a mail is written: SMTP refuses at `RCPT TO`, not after DATA.

`check_recipient` resolves an address for a sender with the same functions
`send_mail` uses (the one parser, `resolve_endpoint`, the alias lookup, which
only a participant of the conversation passes, the new-conversation rate limit
and the round budget) and raises the same domain errors, without writing
anything. `send_mail` still decides for real when the mail is stored: this is a
preview, so a refusal reaches the client early. `check_address` answers the same
for a client before it sends, and says which conversation the mail would join
(a new one, the default one, `.alias`'s, the replied mail's), so a person sees
where a mail goes before it goes there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import Address, parse_address, parse_email
from core.errors import BudgetExhausted, DomainError, NotFound
from core.identity.endpoints import Endpoint, resolve_endpoint, sender_endpoint
from core.mail.conversation_rows import (
    ConversationRow,
    by_alias,
    by_default_key,
    joined_locked,
)
from core.mail.conversation_views import budget_remaining
from core.mail.conversations import default_key
from core.mail.imported import FILED
from core.mail.reading import visible_mail
from core.mail.routing import check_new_conversation_rate
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store
from core.store.models import Mail
from core.views import AddressCheck, AddressReach, ErrorView, ReachedConversation

Status = Literal["active", "waiting", "completed"]


@dataclass(frozen=True, slots=True)
class _Route:
    """Which rule of the send's routing (core/mail/routing.py) the address meets, and
    the existing conversation it leads to (None: the send would create one)."""

    by: Literal["new", "default", "alias", "reply"]
    conversation: ConversationRow | None


def _route(
    session: Session, address: Address, sender: Endpoint, target: Endpoint, parent: Mail | None
) -> _Route:
    """`choose_conversation`'s order, read without locks: `.alias`, `.new`, the
    replied mail's conversation, the default conversation of the two endpoints."""
    if address.alias is not None:
        return _Route("alias", by_alias(session, address.alias, sender.name, lock=False))
    if address.is_new:
        return _Route("new", None)
    if parent is not None:
        conv = joined_locked(session, parent.session_id, sender.name, lock=False)
        if conv is None:
            raise NotFound(f"no mail {parent.id}")
        return _Route("reply", conv)
    key = default_key(sender.pair, target.pair)
    return _Route("default", by_default_key(session, key, lock=False))


async def check_recipient(
    store: Store,
    domain: str,
    principal: Principal,
    text: str,
    *,
    from_workspace: str | None = None,
    limits: Limits,
) -> Endpoint:
    """The mailbox the recipient names if `principal` may send to it now; else the
    domain error. SMTP keeps it for DATA's plan (core/mail/recipients.py).

    Raises InvalidAddress (not our domain, bad syntax), UnknownRecipient,
    UnknownWorkspace, UnknownAlias, RateLimited (an agent opening too many
    conversations) or BudgetExhausted (an agent's rounds are used up).
    """
    address = parse_email(text, domain)
    target, _ = await store.read(
        lambda session: _check(session, principal, address, from_workspace, None, limits)
    )
    return target


def _check(
    session: Session,
    principal: Principal,
    address: Address,
    from_workspace: str | None,
    reply_to: str | None,
    limits: Limits,
) -> tuple[Endpoint, _Route]:
    """The endpoint `address` reaches and how, if `principal` may send to it now (as
    a reply to `reply_to`, when given); else the error."""
    target = resolve_endpoint(session, address)
    parent = visible_mail(session, principal, reply_to) if reply_to is not None else None
    sender = sender_endpoint(session, principal, from_workspace, parent)
    route = _route(session, address, sender, target, parent)
    conv = route.conversation
    if conv is None:
        check_new_conversation_rate(session, sender, limits)
    elif (
        principal.is_agent
        and conv.budget_limit is not None
        and conv.budget_used >= conv.budget_limit
    ):
        raise BudgetExhausted(
            f"the conversation's round-trip budget is used up "
            f"({conv.budget_used}/{conv.budget_limit}); a human must raise it"
        )
    return target, route


def _reach(route: _Route) -> AddressReach:
    conv = route.conversation
    if conv is None:
        return AddressReach(by=route.by, conversation=None)
    reached = ReachedConversation(
        session_id=conv.id,
        session_alias=conv.alias,
        subject=conv.subject,
        status=cast(Status, conv.status),
        budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
        budget_used=conv.budget_used,
        budget_remaining=budget_remaining(conv),
    )
    return AddressReach(by=route.by, conversation=reached)


async def check_address(
    store: Store,
    domain: str,
    principal: Principal,
    text: str,
    *,
    limits: Limits,
    reply_to: str | None = None,
) -> AddressCheck:
    """Whether a send to `text` (native or email form), as a reply to `reply_to` when
    given, would be delivered now, and where: the conversation the send would join.
    If not, the error the send would give: the same check as SMTP's `RCPT TO`.

    It reveals nothing a send would not: an alias of a conversation the caller
    is not in is unknown to them, as it is to a send, and a conversation is
    described only to its participants."""
    try:
        address = parse_address(text, domain)
        target, route = await store.read(
            lambda s: _check(s, principal, address, None, reply_to, limits)
        )
    except DomainError as refused:
        parsed = _parsed_or_none(text, domain)
        return AddressCheck(
            address=text,
            deliverable=False,
            native=parsed.native() if parsed else None,
            email=parsed.email(domain) if parsed else None,
            kind=None,
            error=ErrorView(code=refused.code, message=refused.message),
            reaches=None,
        )
    return AddressCheck(
        address=text,
        deliverable=True,
        native=address.native(),
        email=address.email(domain),
        kind="human" if target.agent is None else "agent",
        error=None,
        reaches=_reach(route),
    )


def _parsed_or_none(text: str, domain: str) -> Address | None:
    try:
        return parse_address(text, domain)
    except DomainError:
        return None


async def replied_mail(
    store: Store, principal: Principal, message_ids: Sequence[str]
) -> str | None:
    """The id of the stored mail a reply names (`In-Reply-To` first, then `References`
    newest first), among the mails `principal` sent or received; None if there is none.

    Someone else's Message-ID is treated as one the gateway does not know: the
    mail does not join that conversation, it is routed by its address alone. Mail
    filed by IMAP APPEND (core/archive/filed.py) is never a parent."""
    wanted = [m.strip() for m in message_ids if m.strip()]
    if not wanted:
        return None

    def run(session: Session) -> str | None:
        for message_id in wanted:
            ids = session.scalars(
                select(Mail.id)
                .where(Mail.message_id == message_id, Mail.mail_type != FILED)
                .order_by(Mail.seq)
            ).all()
            for mail_id in ids:
                try:
                    return visible_mail(session, principal, mail_id).id
                except NotFound:
                    continue
        return None

    return await store.read(run)

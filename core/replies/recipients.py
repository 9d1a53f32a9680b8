"""Who the MX listener takes mail for, decided at `RCPT TO` (RFC 5321 §3.6.2: a server
that is no relay refuses, with 550, what is not its own to accept).

Accepted: `reply+<token>@<domain>` whose token parses and whose MAC is the one issued
(core/secrets/reply_token.py), for an issued token row; and a human's own address when
the envelope sender is one of that human's verified external addresses. Everything
else is refused, before any data is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import parse_email
from core.errors import InvalidAddress
from core.replies.proof import same_mailbox
from core.secrets.reply_token import parse_reply_address, token_matches
from core.store.engine import Store
from core.store.models import ExternalAddress, ReplyToken, User

__all__ = ["Accepted", "accepted_recipient"]


@dataclass(frozen=True, slots=True)
class Accepted:
    owner: str  # the human the mail is for
    token_id: str | None  # the reply token, None for mail to the human's own address
    mail_id: str | None  # the request or question it answers
    address: str  # the external address the token was issued to, or MAIL FROM's


def _token_row(session: Session, token_id: str) -> ReplyToken | None:
    return session.get(ReplyToken, token_id)


def _own_address(session: Session, name: str, mail_from: str) -> Accepted | None:
    if session.scalar(select(User.name).where(User.name == name)) is None:
        return None
    rows = session.scalars(
        select(ExternalAddress.address).where(
            ExternalAddress.owner == name, ExternalAddress.verified_at.is_not(None)
        )
    ).all()
    found = next((a for a in rows if same_mailbox(mail_from, a)), None)
    return None if found is None else Accepted(name, None, None, found)


async def accepted_recipient(
    store: Store, key: bytes, domain: str, rcpt: str, mail_from: str
) -> Accepted | None:
    """What `rcpt` is for, or None: refused."""
    token = parse_reply_address(rcpt, domain)
    if token is not None:
        row = await store.read(lambda s: _token_row(s, token.id))
        if row is None or not token_matches(key, token, row.mail_id, row.owner, row.address):
            return None
        return Accepted(row.owner, row.id, row.mail_id, row.address)
    try:
        address = parse_email(rcpt.strip().strip("<>"), domain)
    except InvalidAddress:
        return None
    if address.path or address.session or not mail_from:
        return None  # an agent, or a conversation's address: not from outside
    return await store.read(lambda s: _own_address(s, address.name, mail_from))

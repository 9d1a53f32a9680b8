"""The `Reply-To:` of a copy sent to a human's external address: `reply+<token>@<domain>`
(core/secrets/reply_token.py), made for each job from its token row and the sealed key,
and put in place of any Reply-To the rendering had (RFC 5322 §3.6: at most one)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.outbound.queue import Claimed
from core.secrets.reply_token import LOCAL_PREFIX, token_for
from core.store.models import ReplyToken

__all__ = ["reply_tokens_of", "with_reply_to"]

_HEADER_END: Final = re.compile(rb"\r?\n\r?\n")
_REPLY_TO: Final = re.compile(rb"^reply-to:.*(?:\r?\n[ \t].*)*\r?\n", re.IGNORECASE | re.MULTILINE)


def reply_tokens_of(session: Session, jobs: Sequence[Claimed]) -> dict[tuple[str, str, str], str]:
    """The token ids of these jobs' copies, by (mail id, human, external address)."""
    rows = session.execute(
        select(ReplyToken.id, ReplyToken.mail_id, ReplyToken.owner, ReplyToken.address).where(
            ReplyToken.mail_id.in_({job.mail_id for job in jobs})
        )
    ).all()
    return {(mail_id, owner, address): token_id for token_id, mail_id, owner, address in rows}


def reply_address(key: bytes, token_id: str, job: Claimed, domain: str) -> str:
    token = token_for(key, token_id, job.mail_id, job.sender, job.recipient)
    return f"{LOCAL_PREFIX}{token}@{domain}"


def with_reply_to(message: bytes, address: str) -> bytes:
    """`message` with `Reply-To: <address>` as its only Reply-To header."""
    end = _HEADER_END.search(message)
    split = end.start() + 2 if end else len(message)
    head, rest = message[:split], message[split:]
    if not head.endswith(b"\n"):
        head += b"\r\n"
    head = _REPLY_TO.sub(b"", head)
    return head + f"Reply-To: <{address}>\r\n".encode("ascii") + rest

"""Verification codes of external addresses: mailed by the postmaster, checked once.

A code is 6 digits from the OS's CSPRNG, valid `CODE_LIFETIME`, with `MAX_TRIES` wrong
guesses before it is spent; only its SHA-256 is stored, compared in constant time. At
most `CODES_PER_HOUR` codes are mailed for one human in an hour (whatever address, and
deleted ones too), so neither guessing nor mailing someone else's inbox scales.

The code's mail is the gateway's own, not the human's: a mail from `postmaster` to the
external address alone (no delivery inside: reading the code in the gateway would prove
nothing), in a conversation of its own, handed to the outbound queue like any outside
mail (core/outbound/queue.py). It goes out whenever a smarthost is configured; the
per-user `outbound_mail` switch is for mail a person writes, and does not apply.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from core.address import POSTMASTER, Address
from core.errors import InvalidRequest, RateLimited
from core.identity.external import EXTERNAL_NAME
from core.mail.conversation_rows import insert_conversation
from core.mail.excerpt import excerpt_values
from core.outbound.queue import enqueue_outbound
from core.replies.addresses_rows import owned, view_of
from core.store.engine import Store
from core.store.models import ExternalAddress, Mail, VerificationCode, new_id, utcnow
from core.views import ExternalAddressView

__all__ = [
    "CODES_PER_HOUR",
    "CODE_LIFETIME",
    "MAX_TRIES",
    "mail_code",
    "new_code",
    "verify_address",
]

CODE_LIFETIME: Final = timedelta(minutes=30)
MAX_TRIES: Final = 5
CODES_PER_HOUR: Final = 5
_DIGITS: Final = 6
SUBJECT: Final = "Your verification code"


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def _body(code: str, address: str, owner: str, domain: str) -> str:
    return (
        f"Your verification code: {code}\n\n"
        f"Someone signed in as {owner}@{domain} added {address} as their external address,"
        " where permission requests and questions will be sent and replies from it"
        " accepted.\n\n"
        f"If that was you, enter the code (valid {int(CODE_LIFETIME.total_seconds() // 60)}"
        " minutes). If not, ignore this mail: nothing is sent here without the code.\n"
    )


def new_code() -> str:
    """6 digits from the OS's CSPRNG."""
    return "".join(secrets.choice("0123456789") for _ in range(_DIGITS))


def mail_code(
    session: Session,
    domain: str,
    row: ExternalAddress,
    *,
    configured: bool,
    make: Callable[[], str] = new_code,
) -> None:
    """A new code for `row` (`make`'s: the contract suite gives fixed ones), stored
    hashed, and its mail queued (in this transaction)."""
    if not configured:
        raise InvalidRequest(
            "this gateway sends no mail outside (no smarthost, AGENTMAIL_SMARTHOST):"
            " no verification code can be mailed"
        )
    now = utcnow()
    sent = session.scalar(
        select(func.count())
        .select_from(VerificationCode)
        .where(
            VerificationCode.owner == row.owner, VerificationCode.sent_at > now - timedelta(hours=1)
        )
    )
    if (sent or 0) >= CODES_PER_HOUR:
        raise RateLimited(
            f"at most {CODES_PER_HOUR} verification codes an hour: try again later", 3600
        )
    code = make()
    session.add(
        VerificationCode(
            owner=row.owner,
            address_id=row.id,
            code_sha256=_digest(code),
            sent_at=now,
            expires_at=now + CODE_LIFETIME,
        )
    )
    conversation = insert_conversation(
        session,
        alias=None,
        alias_source=None,
        subject=SUBJECT,
        budget_limit=None,
        created_by=POSTMASTER,
        status="completed",
    )
    mail_id = new_id()
    body = _body(code, row.address, row.owner, domain)
    session.add(
        Mail(
            id=mail_id,
            session_id=conversation.id,
            parent_id=None,
            from_name=POSTMASTER,
            from_path="",
            to_name=EXTERNAL_NAME,
            to_path=row.address,
            cc=[],
            subject=SUBJECT,
            body=body,
            **excerpt_values(body),
            mail_type="notice",
            auto=True,
            hops=0,
            message_id=f"<{mail_id}@{domain}>",
            created_at=now,
        )
    )
    session.flush()
    postmaster = Address(POSTMASTER).email(domain)
    enqueue_outbound(session, mail_id, POSTMASTER, postmaster, [row.address])


@dataclass(frozen=True, slots=True)
class _Checked:
    view: ExternalAddressView | None
    refusal: str | None


async def verify_address(
    store: Store, owner: str, address_id: str, code: str
) -> ExternalAddressView:
    """Mark the address verified when `code` is its newest code's; a wrong guess is
    counted (committed) before the refusal is raised."""
    guess = code.strip()

    def run(session: Session) -> _Checked:
        row = owned(session, owner, address_id)
        if row.verified_at is not None:
            return _Checked(view_of(row), None)
        newest = session.scalar(
            select(VerificationCode)
            .where(VerificationCode.address_id == address_id)
            .order_by(VerificationCode.sent_at.desc(), VerificationCode.id)
            .limit(1)
        )
        now = utcnow()
        if newest is None or newest.used_at is not None:
            return _Checked(None, "no code was sent to this address: ask for one")
        if newest.expires_at <= now or newest.tries >= MAX_TRIES:
            return _Checked(
                None, "the code has expired or was guessed wrong too often: ask for a new one"
            )
        if not hmac.compare_digest(_digest(guess), newest.code_sha256):
            left = MAX_TRIES - newest.tries - 1
            session.execute(
                update(VerificationCode)
                .where(VerificationCode.id == newest.id)
                .values(tries=VerificationCode.tries + 1)
            )
            return _Checked(None, f"wrong code ({left} tries left)")
        newest.used_at = now
        row.verified_at = now
        return _Checked(view_of(row), None)

    checked = await store.write(run)
    if checked.view is None:
        raise InvalidRequest(checked.refusal or "wrong code")
    return checked.view

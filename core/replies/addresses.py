"""A human's external addresses: added, listed, switched, deleted, verified by a code.

A code is mailed to the address (core/replies/codes.py); the address counts only once
the code came back (`POST …/verify`). Limits: `MAX_ADDRESSES` per human, and the codes
limits of core/replies/codes.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.address.mailto import parse_mailbox
from core.errors import InvalidAddress, LimitReached, NameTaken
from core.replies.addresses_rows import owned, view_of
from core.replies.codes import mail_code, new_code
from core.store.engine import Store
from core.store.models import ExternalAddress
from core.views import ExternalAddressView

__all__ = [
    "MAX_ADDRESSES",
    "add_address",
    "delete_address",
    "list_addresses",
    "resend_code",
    "set_choices",
]

MAX_ADDRESSES: Final = 5


async def list_addresses(store: Store, owner: str) -> list[ExternalAddressView]:
    def run(session: Session) -> list[ExternalAddressView]:
        rows = session.scalars(
            select(ExternalAddress)
            .where(ExternalAddress.owner == owner)
            .order_by(ExternalAddress.created_at, ExternalAddress.id)
        )
        return [view_of(row) for row in rows]

    return await store.read(run)


def _mailbox(text: str, domain: str) -> str:
    mailbox = parse_mailbox(text.strip())
    if mailbox.rpartition("@")[2] == domain.lower():
        raise InvalidAddress(
            f"{text!r} is at this gateway's own domain: an external address is outside it"
        )
    return mailbox


async def add_address(
    store: Store,
    domain: str,
    owner: str,
    text: str,
    *,
    configured: bool,
    make_code: Callable[[], str] = new_code,
) -> ExternalAddressView:
    """Register `text` for `owner` and mail it a code (refused without a smarthost:
    the code could not be sent)."""
    mailbox = _mailbox(text, domain)

    def run(session: Session) -> ExternalAddressView:
        taken = session.scalar(
            select(ExternalAddress.id).where(
                ExternalAddress.owner == owner,
                func.lower(ExternalAddress.address) == mailbox.lower(),
            )
        )
        if taken is not None:
            raise NameTaken(f"{mailbox} is one of your external addresses already")
        count = session.scalar(
            select(func.count()).select_from(ExternalAddress).where(ExternalAddress.owner == owner)
        )
        if (count or 0) >= MAX_ADDRESSES:
            raise LimitReached(f"at most {MAX_ADDRESSES} external addresses each: delete one first")
        row = ExternalAddress(owner=owner, address=mailbox)
        session.add(row)
        session.flush()
        mail_code(session, domain, row, configured=configured, make=make_code)
        return view_of(row)

    return await store.write(run)


async def resend_code(
    store: Store,
    domain: str,
    owner: str,
    address_id: str,
    *,
    configured: bool,
    make_code: Callable[[], str] = new_code,
) -> ExternalAddressView:
    """A new code for an address not yet verified (the older ones stop counting)."""

    def run(session: Session) -> ExternalAddressView:
        row = owned(session, owner, address_id)
        if row.verified_at is not None:
            return view_of(row)
        mail_code(session, domain, row, configured=configured, make=make_code)
        return view_of(row)

    return await store.write(run)


async def set_choices(
    store: Store, owner: str, address_id: str, requests: bool | None, other_mail: bool | None
) -> ExternalAddressView:
    def run(session: Session) -> ExternalAddressView:
        row = owned(session, owner, address_id)
        if requests is not None:
            row.requests = requests
        if other_mail is not None:
            row.other_mail = other_mail
        return view_of(row)

    return await store.write(run)


async def delete_address(store: Store, owner: str, address_id: str) -> None:
    """The address and its choices go; codes and tokens issued to it stay (their
    `address_id` emptied), so the hourly limit counts them and no token of it decides."""

    def run(session: Session) -> None:
        owned(session, owner, address_id)
        session.execute(delete(ExternalAddress).where(ExternalAddress.id == address_id))

    await store.write(run)

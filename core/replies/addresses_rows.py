"""An external address row as its owner sees it, and found only for its owner."""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.errors import NotFound
from core.store.models import ExternalAddress
from core.views import ExternalAddressView

__all__ = ["owned", "view_of"]


def view_of(row: ExternalAddress) -> ExternalAddressView:
    return ExternalAddressView(
        address_id=row.id,
        address=row.address,
        verified=row.verified_at is not None,
        verified_at=row.verified_at,
        requests=row.requests,
        other_mail=row.other_mail,
        created_at=row.created_at,
    )


def owned(session: Session, owner: str, address_id: str) -> ExternalAddress:
    """The row, if it is `owner`'s; another's is as unknown as one that does not exist."""
    row = session.get(ExternalAddress, address_id)
    if row is None or row.owner != owner:
        raise NotFound(f"no external address {address_id!r} of yours")
    return row

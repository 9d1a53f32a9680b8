"""Copies of a mail sent to the external addresses of the humans it is for.

Written in the mail's own transaction (like its Web Push jobs): for each human
recipient, one outbound job per verified external address that wants this kind of
mail — permission requests and questions (`requests`, on by default), anything else
(`other_mail`, off by default) — each with its reply token's row, so the copy's
`Reply-To: reply+<token>@<domain>` (core/relay/reply_to.py) brings the answer back to
this conversation (core/replies/). They are the gateway's own mail, sent whenever a
smarthost is configured: the per-user outbound switch is not asked.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.address import POSTMASTER, Address
from core.outbound.queue import enqueue_outbound
from core.push.payload import PUSHED_TYPES
from core.secrets.reply_token import new_token_id
from core.store.models import ExternalAddress, ReplyToken, table_of, utcnow

__all__ = ["queue_outside_copies"]

_TOKENS = table_of(ReplyToken)


def queue_outside_copies(
    session: Session, mail_id: str, mail_type: str, humans: Sequence[str], domain: str
) -> None:
    names = list(dict.fromkeys(humans))
    if not names:
        return
    wants = ExternalAddress.requests if mail_type in PUSHED_TYPES else ExternalAddress.other_mail
    rows = session.execute(
        select(ExternalAddress.id, ExternalAddress.owner, ExternalAddress.address).where(
            ExternalAddress.owner.in_(names),
            ExternalAddress.verified_at.is_not(None),
            wants.is_(True),
        )
    ).all()
    if not rows:
        return
    now = utcnow()
    session.execute(
        insert(_TOKENS),
        [
            {
                "id": new_token_id(),
                "mail_id": mail_id,
                "owner": owner,
                "address_id": address_id,
                "address": address,
                "issued_at": now,
            }
            for address_id, owner, address in rows
        ],
    )
    postmaster = Address(POSTMASTER).email(domain)  # a bounce is the gateway's to read
    for _address_id, owner, address in rows:
        enqueue_outbound(session, mail_id, owner, postmaster, [address])

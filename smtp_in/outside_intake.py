"""A message from outside, taken: the one path of the MX listener and the reply mailbox.

The verdict (core/mailauth) is written as `Authentication-Results` (RFC 8601 §2.2, the
authserv-id the gateway's domain) on top of the kept bytes, the message is read in a
worker thread, and core/replies/inbound.py stores it, deciding only on proof. A bounce
(to a `postmaster+<mail>.<job>@` address) is read into its sender's notice instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy.orm import Session

from core.mailauth.verdict import Verdict
from core.relay.bounce_record import record_bounce
from core.relay.bounces import read_bounce
from core.replies.inbound import (
    OutsideMail,
    Stored,
    store_collected_mail,
    store_outside_mail,
)
from core.replies.recipients import Accepted
from core.store.engine import Store
from core.store.raw_messages import Original
from smtp_in.message import Submitted, parse_submitted

__all__ = ["read_outside", "take_bounce", "take_collected", "take_received"]


def _read(kept: bytes) -> tuple[Submitted, Original]:
    return parse_submitted(kept), Original.of(kept)


async def read_outside(raw: bytes, verdict: Verdict, domain: str) -> OutsideMail:
    """The message as core stores it, its verdict written on top."""
    header = verdict.header(domain).encode("ascii", "replace") + b"\r\n"
    message, original = await asyncio.to_thread(_read, header + raw)
    return OutsideMail(
        from_addresses=message.from_addresses,
        subject=message.subject,
        body=message.body,
        message_id=message.message_id,
        original=original,
    )


async def take_received(
    store: Store, domain: str, accepted: Accepted, raw: bytes, verdict: Verdict
) -> Stored:
    """A message the MX listener received for `accepted`."""
    mail = await read_outside(raw, verdict, domain)
    return await store_outside_mail(store, domain, accepted, mail, verdict, "mx")


async def take_collected(
    store: Store,
    domain: str,
    accepted: Accepted,
    raw: bytes,
    verdict: Verdict,
    claim: Callable[[str | None], Callable[[Session], bool]],
) -> Stored | None:
    """A message collected from the reply mailbox; None: it was taken before.
    `claim(message_id)` is the check run in the storing transaction."""
    mail = await read_outside(raw, verdict, domain)
    return await store_collected_mail(
        store, domain, accepted, mail, verdict, claim(mail.message_id)
    )


async def take_bounce(store: Store, domain: str, raw: bytes, address: str) -> str:
    """A report on an outbound mail, sent to its bounce `address`: what was done."""
    bounce = await asyncio.to_thread(read_bounce, raw, envelope_recipient=address)
    if bounce is None:
        return "taken: no failure reported"
    written = await record_bounce(store, bounce, domain)
    return f"taken: {written} notice(s) written"

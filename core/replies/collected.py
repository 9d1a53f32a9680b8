"""Replies collected from a mailbox over IMAP instead of received by the MX listener.

A host that cannot receive on port 25 lets its provider take the domain's mail and
collects the replies from that mailbox (`AGENTMAIL_REPLY_MAILBOX`). There is no SMTP
envelope: the reply address is read from the headers a delivering server writes
(`Delivered-To`, `X-Original-To`, `Envelope-To`) and then from `To`/`Cc`. Whatever the
header says, the token's MAC still has to verify, and only an aligned DKIM pass decides
(core/replies/proof.py: SPF judged the provider's relay, not the sender).

Each message is taken once, whatever the number of replicas polling: the cursor (the
mailbox, its UIDVALIDITY, the last UID taken) is a `meta` row locked and moved in the
transaction that stores the message; a replica that finds it moved past a UID stores
nothing. A message whose Message-ID is already stored as a reply from outside is not
stored again (a new UIDVALIDITY, a copy moved between folders).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import Mail, Meta, OutsideReply

__all__ = ["CURSOR_KEY", "Cursor", "claim_uid", "read_cursor", "recipient_candidates", "skip_uid"]

CURSOR_KEY: Final = "reply_mailbox_cursor"
# Headers naming the envelope recipient, as Postfix, Exim and Dovecot's LDA write them,
# before the ones the sender wrote.
_RECIPIENT_HEADERS: Final = ("delivered-to", "x-original-to", "envelope-to", "to", "cc")
MAX_CANDIDATES: Final = 20  # addresses tried per message: a header may list hundreds


@dataclass(frozen=True, slots=True)
class Cursor:
    mailbox: str  # the setting's URL: another mailbox starts from its first message
    uidvalidity: int
    uid: int  # the last UID taken


def _cursor_of(row: Meta | None, mailbox: str, uidvalidity: int | None = None) -> Cursor | None:
    if row is None:
        return None
    try:
        value = json.loads(row.value)
        cursor = Cursor(str(value["mailbox"]), int(value["uidvalidity"]), int(value["uid"]))
    except (ValueError, KeyError, TypeError):
        return None
    if cursor.mailbox != mailbox or uidvalidity not in (None, cursor.uidvalidity):
        return None
    return cursor


def read_cursor(session: Session, mailbox: str, uidvalidity: int) -> Cursor | None:
    """The cursor of `mailbox` at `uidvalidity`; None: take every message there."""
    return _cursor_of(session.get(Meta, CURSOR_KEY), mailbox, uidvalidity)


def claim_uid(
    session: Session, mailbox: str, uidvalidity: int, uid: int, message_id: str | None
) -> bool:
    """Move the cursor to `uid` in this transaction; False: another replica took it (or
    the message is stored already), so this transaction must store nothing."""
    row = session.scalar(select(Meta).where(Meta.key == CURSOR_KEY).with_for_update())
    cursor = _cursor_of(row, mailbox, uidvalidity)
    if cursor is not None and uid <= cursor.uid:
        return False
    value = json.dumps({"mailbox": mailbox, "uidvalidity": uidvalidity, "uid": uid})
    if row is None:
        session.add(Meta(key=CURSOR_KEY, value=value))
        session.flush()
    else:
        row.value = value
    return message_id is None or not _stored(session, message_id)


def _stored(session: Session, message_id: str) -> bool:
    found = session.scalar(
        select(OutsideReply.mail_id)
        .join(Mail, Mail.id == OutsideReply.mail_id)
        .where(Mail.message_id == message_id)
        .limit(1)
    )
    return found is not None


def recipient_candidates(raw: bytes) -> list[str]:
    """The addresses that may be this message's reply address, most telling first."""
    headers = BytesHeaderParser(policy=compat32).parsebytes(raw)
    found: list[str] = []
    for name in _RECIPIENT_HEADERS:
        values = [str(value) for value in headers.get_all(name, [])]
        for _display, address in getaddresses(values):
            if "@" in address and address not in found:
                found.append(address)
                if len(found) == MAX_CANDIDATES:
                    return found
    return found


async def skip_uid(store: Store, mailbox: str, uidvalidity: int, uid: int) -> None:
    """Move the cursor past a message that is not taken (not a reply, or too large)."""
    await store.write(lambda s: claim_uid(s, mailbox, uidvalidity, uid, None))

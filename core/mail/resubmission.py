"""SMTP resubmissions: the same message sent again is answered, not stored again.

A client whose connection dropped after the gateway committed a message, but before
the `250` reached it, sends the message again (RFC 5321 §4.1.1.4 and §6.1: the
server's `250` takes responsibility, and a lost one leaves a duplicate to avoid).
REST has `Idempotency-Key` for this (core/mail/idempotency.py); SMTP has the
message's own identity. The rule:

* the same authenticated sender, the same `Message-ID`, the same envelope (`MAIL
  FROM` and the `RCPT TO` addresses, in order) and the same bytes within 24 hours
  get the reply the first submission got, and nothing is stored;
* anything different is a new submission, stored as before: the rest of a message's
  recipients sent in another transaction (after a `452 4.5.3`) is not a resend;
* a message without a `Message-ID` gets a new one at each submission, so it is
  never recognised.

The record is an idempotency key (`endpoint = "smtp"`, the key a digest of all the
above) written in the transaction of the mails, before them: on PostgreSQL a
concurrent twin waits on that key, fails with a unique violation and, run again,
finds the first reply; SQLite's single writer runs the two one after the other.
No read comes before the write: a resend is rare, and the write finds it (the
files a resend carries are stored again as unsent uploads, which the collector removes).
A refused message leaves no record (its transaction rolled back whole), so sending
it again is tried again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence

from sqlalchemy import ColumnElement, and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.mail.idempotency import KEY_LIFETIME
from core.mail.send import MailWrite
from core.store.engine import Store
from core.store.models import IdempotencyRecord, table_of, utcnow
from core.views import SendResult

ENDPOINT = "smtp"
_RECORDS = table_of(IdempotencyRecord)
_WRITE_ATTEMPTS = 3  # a unique violation means the twin committed: one more suffices
_log = logging.getLogger(__name__)

Answer = Callable[[list[SendResult]], str]


def submission_key(
    message_id: str, mail_from: str, recipients: Sequence[str], content_sha256: str
) -> str:
    """What makes two submissions the same one, as a hex digest; `content_sha256` is the
    submitted bytes' (most often the kept original's own hash, computed once)."""
    digest = hashlib.sha256()
    for part in (message_id, mail_from, *recipients, content_sha256):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def _mine(sender: str, key: str) -> ColumnElement[bool]:
    return and_(
        _RECORDS.c.principal == sender, _RECORDS.c.endpoint == ENDPOINT, _RECORDS.c.key == key
    )


async def send_once(
    store: Store, sender: str, key: str | None, writes: Sequence[MailWrite], answer: Answer
) -> tuple[str, bool]:
    """Store the mails and answer them with `answer`, unless `key` was stored already:
    then the first reply. Returns the reply and whether it is a replay."""
    if key is None:
        return answer(await store.write(lambda s: [write(s) for write in writes])), False
    for attempt in range(1, _WRITE_ATTEMPTS + 1):
        try:
            return await store.write(lambda s: _send_once(s, sender, key, writes, answer))
        except IntegrityError:
            if attempt == _WRITE_ATTEMPTS:
                raise
            _log.info(
                "a concurrent submission of the same message by %r: reading its reply", sender
            )
    raise AssertionError("unreachable")


def _send_once(
    session: Session, sender: str, key: str, writes: Sequence[MailWrite], answer: Answer
) -> tuple[str, bool]:
    now = utcnow()
    mine = _mine(sender, key)
    found = session.execute(select(_RECORDS.c.response, _RECORDS.c.created_at).where(mine)).first()
    if found is not None and found.created_at >= now - KEY_LIFETIME:
        return str(found.response["reply"]), True
    if found is not None:  # older than 24 hours: a new submission (the prune job was late)
        session.execute(delete(_RECORDS).where(mine))
    # Before the mails: a concurrent twin waits here (PostgreSQL) instead of storing too.
    session.execute(
        insert(_RECORDS).values(
            principal=sender,
            endpoint=ENDPOINT,
            key=key,
            request_sha256=key,
            status_code=250,
            response=None,
            created_at=now,
        )
    )
    reply = answer([write(session) for write in writes])
    session.execute(update(_RECORDS).where(mine).values(response={"reply": reply}))
    return reply, False

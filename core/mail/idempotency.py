"""Idempotency keys: a write sent twice under one key is made once.

A bridge that crashed after its reply was committed, but before it heard the
answer, sends the reply again under the same `Idempotency-Key` and gets the
first result back: the conversation gets exactly one reply.
The rules follow draft-ietf-httpapi-idempotency-key-header (and Stripe's API):

* a key is scoped to the caller and the endpoint, and lives 24 hours (§2.3);
* the same key with the same request answers the first result, storing nothing new;
* the same key with a different request is refused (§2.6, `idempotency_key_reused`);
* the record commits in the transaction of the write, so a crash never leaves a key
  without its mail or a mail without its key.

Two concurrent requests with one key: the record is inserted before the write, so
on PostgreSQL the second waits on the primary key until the first commits, fails
with a unique violation and runs again, now finding the first result (or, if the
first rolled back, writing itself). SQLite's single writer runs them one after the
other, so the second finds the record at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import timedelta

from pydantic import BaseModel
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core.errors import IdempotencyKeyReused, InvalidRequest
from core.mail.send import MailWrite
from core.principal import Principal
from core.store.engine import Store
from core.store.models import IdempotencyRecord, table_of, utcnow
from core.views import SendResult

KEY_LIFETIME = timedelta(hours=24)
MAX_KEY_LENGTH = 255
_WRITE_ATTEMPTS = 3  # a unique violation means the other request committed: one more suffices
_RECORDS = table_of(IdempotencyRecord)
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IdempotencyKey:
    """A key as one endpoint received it, with the digest of the request it came with."""

    endpoint: str
    key: str
    request_sha256: str


@dataclass(frozen=True, slots=True)
class Outcome:
    result: SendResult
    replayed: bool  # the first result of this key, not a new write


def idempotency_key(endpoint: str, key: str, request: BaseModel) -> IdempotencyKey:
    """Check a client's key (1 to 255 printable ASCII characters, as Stripe allows) and
    digest the request: its parsed fields, so key order, white space and fields a
    client left at their defaults do not make two equal requests differ."""
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise InvalidRequest(f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters")
    if any(not " " <= char <= "~" for char in key) or key.strip() != key:
        raise InvalidRequest(
            "Idempotency-Key must be printable ASCII without leading or trailing spaces"
        )
    canonical = json.dumps(
        request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return IdempotencyKey(endpoint, key, hashlib.sha256(canonical.encode("utf-8")).hexdigest())


async def write_once(
    store: Store, principal: Principal, key: IdempotencyKey | None, write: MailWrite
) -> Outcome:
    """Run `write` (a mail write, `core/mail/send.py`), unless `key` already made it."""
    if key is None:
        return Outcome(await store.write(write), replayed=False)
    for attempt in range(1, _WRITE_ATTEMPTS + 1):
        try:
            return await store.write(lambda session: _write_once(session, principal, key, write))
        except IntegrityError:
            if attempt == _WRITE_ATTEMPTS:
                raise
            _log.info("a concurrent request holds idempotency key %r; reading its result", key.key)
    raise AssertionError("unreachable")


def _write_once(
    session: Session, principal: Principal, key: IdempotencyKey, write: MailWrite
) -> Outcome:
    now = utcnow()
    # Pruned on write: the caller's own expired keys, by the primary key's prefix.
    session.execute(
        delete(_RECORDS).where(
            _RECORDS.c.principal == principal.name, _RECORDS.c.created_at < now - KEY_LIFETIME
        )
    )
    found = session.execute(
        select(_RECORDS.c.request_sha256, _RECORDS.c.response).where(
            _RECORDS.c.principal == principal.name,
            _RECORDS.c.endpoint == key.endpoint,
            _RECORDS.c.key == key.key,
        )
    ).first()
    if found is not None:
        if found.request_sha256 != key.request_sha256:
            raise IdempotencyKeyReused(
                f"Idempotency-Key '{key.key}' was used within 24 hours for a different "
                "request: use a new key for a new request"
            )
        assert found.response is not None  # filled in the transaction that inserted it
        return Outcome(SendResult.model_validate(found.response), replayed=True)
    # Before the write: a concurrent twin waits here (PostgreSQL) instead of writing too.
    session.execute(
        insert(_RECORDS).values(
            principal=principal.name,
            endpoint=key.endpoint,
            key=key.key,
            request_sha256=key.request_sha256,
            status_code=200,
            response=None,
            created_at=now,
        )
    )
    result = write(session)
    session.execute(
        update(_RECORDS)
        .where(
            _RECORDS.c.principal == principal.name,
            _RECORDS.c.endpoint == key.endpoint,
            _RECORDS.c.key == key.key,
        )
        .values(response=result.model_dump(mode="json"))
    )
    return Outcome(result, replayed=False)


async def prune_idempotency_keys(store: Store) -> int:
    """Forget keys older than 24 hours (the gateway's prune job; writes prune their own)."""
    cutoff = utcnow() - KEY_LIFETIME

    def run(session: Session) -> int:
        result = session.execute(delete(_RECORDS).where(_RECORDS.c.created_at < cutoff))
        return int(result.rowcount)  # type: ignore[attr-defined]

    return await store.write(run)

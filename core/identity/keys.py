"""Keys: agent keys, user keys and web logins; authentication of a bearer token.

Only the SHA-256 of a key is stored. Lifecycles (ARCHITECTURE.md "Data model"):
`permanent`; `timed` (expires); `one_time` — for a user key, it serves one
request; for an agent key, it is an enrolment key whose only use is to register
the agent, which returns the agent's permanent key and kills the enrolment key.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.durations import parse_duration
from core.errors import AuthenticationFailed, FieldProblem, Forbidden, InvalidRequest, NotFound
from core.identity.security import new_token, token_sha256
from core.principal import Principal
from core.store.credentials import not_a_credential_change
from core.store.engine import Store
from core.store.models import Key, User, utcnow
from core.views import IssuedKey, KeyView

Lifecycle = Literal["permanent", "one_time", "timed"]
KeyKind = Literal["agent", "user", "login"]
MIN_CLIENT_KEY_LENGTH = 32
_SHA256_HEX = re.compile("[0-9a-f]{64}")
# A web login's last use is written at most this often (a write on every request would not do).
LAST_USE_PRECISION = timedelta(minutes=1)


def key_is_active(key: Key, now: datetime) -> bool:
    if key.revoked_at is not None:
        return False
    if key.expires_at is not None and key.expires_at <= now:
        return False
    return not (key.lifecycle == "one_time" and key.used_at is not None)


def key_view(key: Key) -> KeyView:
    return KeyView(
        key_id=key.id,
        kind="agent" if key.kind == "agent" else "user",
        label=key.label,
        lifecycle=key.lifecycle,
        owner=key.owner,
        active=key_is_active(key, utcnow()),
        expires_at=key.expires_at,
        used_at=key.used_at,
        revoked_at=key.revoked_at,
        created_at=key.created_at,
    )


def _lifetime(expires_in: str | int | float) -> timedelta:
    """`expires_in` as a duration; its refusal names the field."""
    try:
        return parse_duration(expires_in)
    except InvalidRequest as error:
        raise InvalidRequest(error.message, FieldProblem("expires_in", "format")) from error


async def issue_key(
    store: Store,
    *,
    kind: KeyKind,
    lifecycle: Lifecycle,
    owner: str | None = None,
    label: str = "",
    expires_in: str | int | float | None = None,
    created_by: str | None = None,
    token: str | None = None,
    token_digest: str | None = None,
    user_agent: str = "",
) -> IssuedKey:
    """Create a key; returns it once. `token` registers a client-generated key instead,
    and `token_digest` one known only by its SHA-256 (the key never left its client)."""
    if lifecycle not in ("permanent", "one_time", "timed"):
        raise InvalidRequest("lifecycle must be permanent, one_time or timed")
    if lifecycle == "timed" and expires_in is None:
        raise InvalidRequest(
            "a timed key needs expires_in (e.g. 3600 or '1h')",
            FieldProblem("expires_in", "missing"),
        )
    if lifecycle == "permanent" and expires_in is not None:
        raise InvalidRequest(
            "a permanent key does not expire: use lifecycle 'timed'",
            FieldProblem("expires_in", "invalid"),
        )
    expires_at = utcnow() + _lifetime(expires_in) if expires_in is not None else None
    if token is not None and (len(token) < MIN_CLIENT_KEY_LENGTH or not token.isprintable()):
        raise InvalidRequest(
            f"a client-generated key must be at least {MIN_CLIENT_KEY_LENGTH} printable characters"
        )
    if token_digest is not None:
        if token is not None:
            raise InvalidRequest("give the key or its SHA-256, not both")
        if not _SHA256_HEX.fullmatch(token_digest):
            raise InvalidRequest("key_sha256 is 64 lower-case hexadecimal digits")
    secret = token if token is not None else new_token(kind)
    digest = token_digest or token_sha256(secret)
    client_made = token is not None or token_digest is not None
    key = Key(
        kind=kind,
        owner=owner,
        label=label[:200],
        lifecycle=lifecycle,
        token_sha256=digest,
        expires_at=expires_at,
        created_by=created_by,
        user_agent=user_agent[:200],
        last_used_at=utcnow() if kind == "login" else None,
    )

    def run(session: Session) -> None:
        if session.scalar(select(Key.id).where(Key.token_sha256 == digest)):
            raise InvalidRequest("this key is already registered")
        session.add(key)

    await store.write(run)
    return IssuedKey(
        key_id=key.id,
        key=None if client_made else secret,
        lifecycle=lifecycle,
        expires_at=expires_at,
    )


async def list_keys(store: Store, *, kind: KeyKind, owner: str | None = None) -> list[KeyView]:
    query = select(Key).where(Key.kind == kind).order_by(Key.created_at)
    if owner is not None:
        query = query.where(Key.owner == owner)
    return await store.read(lambda s: [key_view(key) for key in s.scalars(query)])


async def revoke_key(store: Store, key_id: str, *, kind: KeyKind, owner: str | None = None) -> None:
    """Revoke a key of `kind` (and of `owner`, when given); unknown or foreign keys are 404."""

    def run(session: Session) -> None:
        key = session.get(Key, key_id)
        if key is None or key.kind != kind or (owner is not None and key.owner != owner):
            raise NotFound(f"no such key: {key_id}")
        if key.revoked_at is None:
            key.revoked_at = utcnow()

    await store.write(run)


async def revoke_token(store: Store, token: str) -> None:
    statement = (
        update(Key)
        .where(Key.token_sha256 == token_sha256(token), Key.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    await store.write(lambda s: s.execute(statement))


async def authenticate(store: Store, token: str) -> Principal:
    """The principal a bearer token or login cookie stands for, or AuthenticationFailed.

    A key that may be used again is remembered for a few seconds (store.credentials,
    dropped at once when any key or user changes, on every replica); a one-time key
    never is, so each use of it reaches the database and is consumed there.
    """
    digest = token_sha256(token)
    cache = store.credentials
    remembered: Principal | None = cache.get(digest)
    if remembered is not None:
        return remembered
    generation = cache.generation  # before the read: a drop during it wins
    principal, expires_at = await _authenticate_in_store(store, digest)
    if principal.key_lifecycle != "one_time":
        left = None if expires_at is None else (expires_at - utcnow()).total_seconds()
        cache.put(digest, principal, generation, left)
    return principal


async def _authenticate_in_store(store: Store, digest: str) -> tuple[Principal, datetime | None]:
    now = utcnow()
    # One statement, plain columns (no ORM objects): this runs on every uncached request.
    query = (
        select(
            Key.id,
            Key.kind,
            Key.owner,
            Key.lifecycle,
            Key.expires_at,
            Key.used_at,
            Key.revoked_at,
            Key.last_used_at,
            User.name.label("user_name"),
            User.is_admin,
        )
        .outerjoin(User, (User.name == Key.owner) & Key.kind.in_(("user", "login")))
        .where(Key.token_sha256 == digest)
    )
    row = await store.read(lambda s: s.execute(query).first())
    if (
        row is None
        or row.revoked_at is not None
        or (row.expires_at is not None and row.expires_at <= now)
        or (row.lifecycle == "one_time" and row.used_at is not None)
    ):
        raise AuthenticationFailed("invalid, expired, used or revoked key")
    if row.kind == "agent":
        agent = Principal(
            kind="agent", name=row.owner or "", key_id=row.id, key_lifecycle=row.lifecycle
        )
        return agent, row.expires_at
    if row.user_name is None:
        raise AuthenticationFailed("the key's user no longer exists")
    if row.lifecycle == "one_time" and row.kind == "user":
        await _consume_one_time(store, row.id)
    if row.kind == "login" and (
        row.last_used_at is None or row.last_used_at <= now - LAST_USE_PRECISION
    ):
        # (Served from the cache, a login is touched when its entry has expired: the
        # recorded last use is within LAST_USE_PRECISION plus the cache's seconds.)
        touch = update(Key).where(Key.id == row.id).values(last_used_at=now)

        def record_use(session: Session) -> None:
            session.execute(touch)
            not_a_credential_change(session)  # no answer changes: keep what others cached

        await store.write(record_use)
    human = Principal(
        kind="human",
        name=row.user_name,
        key_id=row.id,
        key_lifecycle=row.lifecycle,
        is_admin=bool(row.is_admin),
        via="login" if row.kind == "login" else "key",
    )
    return human, row.expires_at


async def _consume_one_time(store: Store, key_id: str) -> None:
    """Mark a one-time key used; of two racing requests exactly one gets through."""
    statement = update(Key).where(Key.id == key_id, Key.used_at.is_(None)).values(used_at=utcnow())

    def run(session: Session) -> None:
        if session.execute(statement).rowcount != 1:  # type: ignore[attr-defined]
            raise AuthenticationFailed("this one-time key has been used")

    await store.write(run)


def require_bound_agent(principal: Principal) -> None:
    """Agent endpoints other than register need a key bound to a registered agent."""
    if principal.is_enrolment_key:
        raise Forbidden("an enrolment (one-time) key can only register an agent")
    if not principal.name:
        raise Forbidden("this agent key is not bound to an agent yet: register first")

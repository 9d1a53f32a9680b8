"""Humans: users, passwords, web logins and the first admin."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from core.address import RESERVED_NAMES, Address, normalize_name
from core.errors import AuthenticationFailed, FieldProblem, InvalidRequest, NameTaken, NotFound
from core.identity.keys import revoke_token
from core.identity.security import (
    check_password,
    hash_password,
    new_password,
    password_stamp,
    remembered_password_key,
)
from core.principal import Principal
from core.store.credentials import CredentialCache
from core.store.engine import Store
from core.store.models import Agent, User
from core.store.port import backend_of
from core.views import UserView

# The password rules (docs/api.md): long enough to resist guessing, short enough to bound
# the work of hashing it (it is pre-hashed, so bcrypt's 72-byte cut does not apply).
MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024


def check_new_password(password: str) -> None:
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise InvalidRequest(
            f"a password has {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters"
        )


def user_view(user: User, domain: str) -> UserView:
    address = Address(user.name)
    return UserView(
        user_id=user.id,
        name=user.name,
        address=address.native(),
        email=address.email(domain),
        is_admin=user.is_admin,
        outbound_mail=bool(user.outbound_mail),
        created_at=user.created_at,
    )


_NAMES_LOCK_KEY = 0x61676D6E  # "agmn": serialises taking a name across users and agents


def lock_names(session: Session) -> None:
    """On PostgreSQL, one transaction at a time may take a new name (SQLite writes are serial).

    The unique constraints cover each table; this covers the two tables together.
    """
    backend_of(session).serialize(session, _NAMES_LOCK_KEY)


def refuse_reserved_name(name: str) -> None:
    """`postmaster` signs the gateway's own notices (RFC 5321 §4.5.1): nobody may take it."""
    if name in RESERVED_NAMES:
        raise NameTaken(
            f"the name '{name}' is reserved for the gateway itself",
            FieldProblem("name", "reserved"),
        )


def name_in_use(session: Session, name: str) -> bool:
    """Names are unique across humans and agents together (call `lock_names` first)."""
    if session.scalar(select(User.id).where(User.name == name)):
        return True
    return bool(session.scalar(select(Agent.id).where(Agent.name == name)))


async def create_user(store: Store, name: str, password: str, *, is_admin: bool = False) -> User:
    name = normalize_name(name)
    refuse_reserved_name(name)
    check_new_password(password)
    user = User(name=name, password_hash=await hash_password(password), is_admin=is_admin)

    def run(session: Session) -> User:
        lock_names(session)
        if name_in_use(session, name):
            raise NameTaken(
                f"the name '{name}' is already taken by a human or an agent",
                FieldProblem("name", "taken"),
            )
        session.add(user)
        return user

    return await store.write(run)


async def list_users(store: Store) -> list[User]:
    return await store.read(lambda s: list(s.scalars(select(User).order_by(User.name))))


async def get_user(store: Store, name: str) -> User:
    query = select(User).where(User.name == name.strip().lower())
    user = await store.read(lambda s: s.scalar(query))
    if user is None:
        raise NotFound(f"no user named '{name}'")
    return user


async def check_user_password(store: Store, name: str, password: str) -> Principal:
    """The human with this name and password; the same error for a wrong name or password.

    A pair that passed is remembered for a few seconds as a keyed hash (as Dovecot's
    auth cache does), so a mail client's parallel SMTP and IMAP logins pay bcrypt once.
    What is remembered is the password hash it matched: each login still reads the
    user's row (one indexed read, no bcrypt), so a password changed by anyone — this
    process, a replica, the CLI — ends the remembered pair at once. A failure is never
    remembered: each wrong guess costs bcrypt in full and counts in the login throttle.
    """
    name = name.strip().lower()
    cache, remember_as = store.credentials, remembered_password_key(name, password)
    row = await store.read(lambda s: s.execute(_USER_LOGIN, {"name": name}).first())
    remembered: str | None = cache.get(remember_as)
    if row is not None and remembered is not None and remembered == row.password_hash:
        return _password_principal(row)
    ok = (
        await _verified_once(cache, remember_as, password, row.password_hash)
        if row is not None
        else await check_password(password, None)
    )
    if row is None or not ok:
        raise AuthenticationFailed("wrong user name or password")
    return _password_principal(row)


def _password_principal(row: Any) -> Principal:
    return Principal(
        kind="human",
        name=row.name,
        is_admin=row.is_admin,
        via="password",
        password_stamp=password_stamp(row.password_hash),
    )


# Checks of one (name, password) pair against one hash, in flight in this process.
_verifying: dict[str, asyncio.Future[bool]] = {}


async def _verified_once(
    cache: CredentialCache, remember_as: str, password: str, hashed: str
) -> bool:
    """bcrypt once for the same pair however many logins ask at the same moment.

    A mail client opens its SMTP and IMAP sessions together, and the cache above is
    empty until the first check ends: without this each of them paid bcrypt in full
    (50 replies by mail on three replicas at once cost ~12 s of CPU). The same input
    gives the same answer, so the waiters learn nothing a check of their own would
    not tell them; each attempt still counts in the login throttle (its caller). A pair
    that passed is remembered before the check is done: a login that comes after it
    ends finds it remembered (remembering after, in the first waiter, left a moment in
    which a third login found neither and paid bcrypt again).
    """
    key = f"{remember_as}:{hashed}"
    check = _verifying.get(key)
    if check is None:
        check = asyncio.ensure_future(_check_and_remember(cache, remember_as, password, hashed))
        _verifying[key] = check
        check.add_done_callback(lambda _: _verifying.pop(key, None))
    return await asyncio.shield(check)  # a waiter that gives up ends no other's check


async def _check_and_remember(
    cache: CredentialCache, remember_as: str, password: str, hashed: str
) -> bool:
    generation = cache.generation  # not remembered if the cache is dropped meanwhile
    ok = await check_password(password, hashed)
    if ok:
        cache.put(remember_as, hashed, generation)
    return ok


_USER_LOGIN = select(User.name, User.is_admin, User.password_hash).where(
    User.name == bindparam("name")
)


async def logout(store: Store, token: str) -> None:
    await revoke_token(store, token)


async def ensure_admin(store: Store, name: str, password: str) -> str | None:
    """Create the first admin when there is no user at all.

    Returns the password when it was generated here (the caller prints it once).
    """
    if await store.read(lambda s: s.scalar(select(User.id).limit(1))):
        return None
    generated = None if password else new_password()
    try:
        await create_user(store, name, password or generated or "", is_admin=True)
    except NameTaken:  # another replica won the race
        return None
    return generated

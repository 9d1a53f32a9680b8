"""Web logins: opened with a password (checked by core/identity/login_guard.py), listed
and revoked by their user, ended when the password changes.

A web login is a key of kind `login` (its token is the session cookie), so
revoking one is revoking that key: the next request with its cookie gets 401.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.identity.keys import issue_key, key_is_active
from core.store.engine import Store
from core.store.models import Key, utcnow
from core.views import LoginView


async def open_login(store: Store, name: str, lifetime: timedelta, user_agent: str) -> str:
    """A new web login of user `name`; returns its token (the cookie's value)."""
    issued = await issue_key(
        store,
        kind="login",
        lifecycle="timed",
        owner=name,
        label="web login",
        expires_in=lifetime.total_seconds(),
        user_agent=user_agent,
    )
    assert issued.key is not None
    return issued.key


def _login_view(key: Key, current: str | None) -> LoginView:
    return LoginView(
        login_id=key.id,
        user_agent=key.user_agent,
        created_at=key.created_at,
        last_used_at=key.last_used_at,
        expires_at=key.expires_at,
        current=key.id == current,
    )


async def list_logins(store: Store, name: str, current: str | None) -> list[LoginView]:
    """The user's web logins that still work, the most recently used first."""
    query = select(Key).where(Key.kind == "login", Key.owner == name, Key.revoked_at.is_(None))

    def run(session: Session) -> list[LoginView]:
        now = utcnow()
        found = [key for key in session.scalars(query) if key_is_active(key, now)]
        found.sort(key=lambda key: key.last_used_at or key.created_at, reverse=True)
        return [_login_view(key, current) for key in found]

    return await store.read(run)


async def revoke_login(store: Store, name: str, login_id: str) -> None:
    """End one of the user's web logins; another user's, or none, is 404."""

    def run(session: Session) -> None:
        key = session.get(Key, login_id)
        if key is None or key.kind != "login" or key.owner != name:
            raise NotFound(f"no such login: {login_id}")
        if key.revoked_at is None:
            key.revoked_at = utcnow()

    await store.write(run)


def end_logins(session: Session, name: str, *, keep: str | None = None) -> None:
    """Inside a transaction: every web login of `name` ends, except `keep`; keys stay."""
    statement = (
        update(Key)
        .where(Key.kind == "login", Key.owner == name, Key.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    if keep is not None:
        statement = statement.where(Key.id != keep)
    session.execute(statement)

"""Changing passwords and the admin flag.

A new password ends every web login of its user (but the one that changed it,
when a web login did), so a stolen cookie dies with the old password, and the IMAP
and SMTP sessions that logged in with the old password end too (its hash changes:
core/identity/signed_in.py); user keys stay, they are revoked on their own
(`DELETE /me/keys/{id}`). There is always
at least one admin: the last one cannot give the flag up.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.errors import AuthenticationFailed, FieldProblem, Forbidden, NotFound
from core.identity.accounts import check_new_password, lock_names
from core.identity.login_guard import LoginGuard
from core.identity.logins import end_logins
from core.identity.security import hash_password
from core.principal import Principal
from core.store.engine import Store
from core.store.models import User


async def set_password(store: Store, name: str, password: str, *, keep: str | None = None) -> None:
    """Set `name`'s password (an admin's reset, the CLI); its web logins end but `keep`."""
    check_new_password(password)
    hashed = await hash_password(password)
    name = name.strip().lower()

    def run(session: Session) -> None:
        user = session.scalar(select(User).where(User.name == name))
        if user is None:
            raise NotFound(f"no user named '{name}'")
        user.password_hash = hashed
        end_logins(session, name, keep=keep)

    await store.write(run)


async def change_password(
    store: Store, guard: LoginGuard, human: Principal, current: str, new: str, address: str
) -> None:
    """The user's own change: the current password first (throttled like a login).

    A wrong one is refused as a login is, naming the field: the caller's own
    credential is good, and a client tells the two apart by `current_password`."""
    check_new_password(new)
    try:
        await guard.check(store, human.name, current, address, "web")
    except AuthenticationFailed as error:
        raise AuthenticationFailed(
            "the current password is wrong", FieldProblem("current_password", "wrong")
        ) from error
    keep = human.key_id if human.via == "login" else None
    await set_password(store, human.name, new, keep=keep)


async def set_admin(store: Store, name: str, is_admin: bool) -> User:
    """Grant or withdraw the admin flag; withdrawing the last admin's is refused."""
    name = name.strip().lower()

    def run(session: Session) -> User:
        # Serialise flag changes on PostgreSQL (two admins demoting each other at once).
        lock_names(session)
        user = session.scalar(select(User).where(User.name == name))
        if user is None:
            raise NotFound(f"no user named '{name}'")
        if user.is_admin and not is_admin:
            admins = session.scalar(select(func.count()).select_from(User).where(User.is_admin))
            if (admins or 0) <= 1:
                raise Forbidden("the last admin keeps the admin flag: make another admin first")
        user.is_admin = is_admin
        return user

    return await store.write(run)

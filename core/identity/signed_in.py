"""The sessions a credential opened — IMAP and SMTP sessions, SSE streams — ended when
that credential no longer holds.

REST checks its key at every request, so a revoked key is refused at once; a session
checks its credential once, at login, and may stay open for hours. So each one is
held here with what it logged in with: a key (its id) or a password (a stamp of the
hash it matched, core/identity/security.py). Whenever credentials change — any
UPDATE or DELETE of `keys` or `users`, in this process or on another replica or
worker (`CredentialCache.drop_all`, core/store/credentials.py, told by NOTIFY on
PostgreSQL) — the held ones are checked again, with one read for all of them, and
each whose key is revoked, expired or gone, or whose password has been set again
since (its own change, an admin's reset), is ended by its adapter: IMAP `* BYE`,
SMTP `421 4.7.0`, the SSE stream's end. The user's other sessions stay: those that
logged in with another key, and, when a key is revoked, those that used the password.

`check` also runs every few seconds (gateway/background.py), for what no notice tells:
a timed key's expiry, and a change made on SQLite by another process (the CLI).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import metrics
from core.identity.security import password_stamp
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Key, User, utcnow
from core.tasks import cancel_and_wait

log = logging.getLogger("agentmail.identity")
CHECK_EVERY_SECONDS = 5.0
_CHUNK = 500  # ids in one `IN (…)`: far below every database's limit on parameters

Protocol = Literal["smtp", "imap", "sse"]


@dataclass(eq=False, slots=True)
class Held:
    """One open session and how to end it (`end` runs on the loop, must not block)."""

    principal: Principal
    protocol: Protocol
    end: Callable[[], None]


class SignedIn:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._held: set[Held] = set()
        self._again = False
        self._task: asyncio.Task[None] | None = None
        store.credentials.on_drop.append(self.changed)

    def hold(
        self, principal: Principal, protocol: Protocol, end: Callable[[], None], since: int
    ) -> Held:
        """Hold a session that logged in as `principal`. `since`: the credential cache's
        generation before its credential was read, so a change that came in between
        (and whose check could not see this session yet) is checked for it now."""
        held = Held(principal, protocol, end)
        self._held.add(held)
        if since != self.store.credentials.generation:
            self.changed()
        return held

    def release(self, held: Held) -> None:
        """The session has ended on its own."""
        self._held.discard(held)

    def changed(self) -> None:
        """Credentials changed somewhere: check the held sessions soon (once for many)."""
        if not self._held:
            return
        self._again = True
        if self._task is None or self._task.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no loop: nothing is being served
            self._task = loop.create_task(self._check_while_changed(), name="signed-in")

    async def _check_while_changed(self) -> None:
        while self._again:
            self._again = False
            try:
                await self.check()
            except Exception:  # the database away: the periodic check tries again
                log.warning("could not check the credentials of open sessions", exc_info=True)

    async def check(self) -> int:
        """End every held session whose credential no longer holds; how many ended."""
        held = list(self._held)
        if not held:
            return 0
        key_ids = sorted({h.principal.key_id or "" for h in held if _by_key(h.principal)})
        names = sorted({h.principal.name for h in held if not _by_key(h.principal)})
        live, stamps = await self.store.read(
            lambda session: (_live_keys(session, key_ids), _stamps(session, names))
        )
        ended = 0
        for one in held:
            principal = one.principal
            if _by_key(principal):
                holds = principal.key_id in live
            else:
                holds = stamps.get(principal.name) == principal.password_stamp
            if holds or one not in self._held:
                continue
            self._held.discard(one)
            metrics.SESSIONS_ENDED.labels(one.protocol).inc()
            log.info(
                "ended a %s session of '%s': the %s it logged in with was revoked or changed",
                one.protocol,
                principal.name,
                "key" if _by_key(principal) else "password",
            )
            try:
                one.end()
            except Exception:  # one adapter's failure must not keep the others open
                log.exception("could not end a %s session", one.protocol)
            ended += 1
        return ended

    async def sweep(self) -> None:
        """The periodic check (gateway/background.py)."""
        await self.check()

    async def close(self) -> None:
        if self.changed in self.store.credentials.on_drop:
            self.store.credentials.on_drop.remove(self.changed)
        if self._task is not None:
            await cancel_and_wait([self._task], "signed-in sessions' check")


def _by_key(principal: Principal) -> bool:
    return principal.via != "password"


def _chunks(values: Sequence[str]) -> list[Sequence[str]]:
    return [values[at : at + _CHUNK] for at in range(0, len(values), _CHUNK)]


def _live_keys(session: Session, ids: Sequence[str]) -> set[str]:
    """Of these keys, those still good: not revoked, not expired, their user still there
    (an agent key's agent is its bound name, which nothing takes away)."""
    now = utcnow()
    live: set[str] = set()
    for chunk in _chunks(ids):
        query = (
            select(Key.id, Key.kind, Key.expires_at, User.name)
            .outerjoin(User, (User.name == Key.owner) & Key.kind.in_(("user", "login")))
            .where(Key.id.in_(chunk), Key.revoked_at.is_(None))
        )
        for row in session.execute(query):
            if row.expires_at is not None and row.expires_at <= now:
                continue
            if row.kind != "agent" and row.name is None:
                continue
            live.add(row.id)
    return live


def _stamps(session: Session, names: Sequence[str]) -> dict[str, str]:
    """The stamp of each user's password as it is now (no row: no entry)."""
    stamps: dict[str, str] = {}
    for chunk in _chunks(names):
        query = select(User.name, User.password_hash).where(User.name.in_(chunk))
        for row in session.execute(query):
            stamps[row.name] = password_stamp(row.password_hash)
    return stamps

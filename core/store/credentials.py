"""Who a credential stands for, remembered for a few seconds, forgotten at once when
keys or users change.

Every REST request authenticates its bearer key (a database read), and every SMTP
or IMAP password login runs bcrypt at its full cost. Both answers change only when
a row of `keys` or `users` is updated or deleted (a revocation, an expiry moved,
a password changed, a key bound to its agent, a user removed), so:

* the write engines watch their own statements: a transaction whose UPDATE or
  DELETE touched `keys` or `users` marks its connection (`watch_credential_writes`);
* at the end of that transaction `flush_events` adds the pseudo-recipient
  `CREDENTIALS_CHANGED` to the names it wakes, so after COMMIT `Store.write` drops
  every remembered answer of this process and, on PostgreSQL, the NOTIFY that
  carries the wake-ups tells every replica to drop theirs (core/store/replicas.py);
* an answer read *before* such a drop is never remembered *after* it: `put` takes
  the generation the caller saw before its database read and refuses a stale one.

New rows (a new key, a new user) invalidate nothing, so they do not drop anything.
A change made by another process on SQLite (the CLI) has no NOTIFY to carry it: it
is seen once the entries expire, after `ttl` seconds at most. (Passwords do better:
core/identity/accounts.py remembers the hash a password matched and compares it
with the user's row at each login, so a changed password is seen at once anywhere.)
A `ttl` of 0 turns the cache off (the CLI's stores, `AGENTMAIL_CREDENTIAL_CACHE_SECONDS=0`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

# Never a name (names are letters, digits, `.`, `_`, `-`), so it cannot wake a stream.
CREDENTIALS_CHANGED = "!credentials"
WATCHED_TABLES = frozenset({"keys", "users"})
MAX_ENTRIES = 10_000
_FLAG = "agentmail_credentials_written"


class CredentialCache:
    """A small map from a credential's digest to what it stands for, with a generation."""

    def __init__(
        self,
        ttl: float,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self.generation = 0
        self._clock = clock
        self._entries: dict[str, tuple[float, Any]] = {}
        # Called after every drop: the sessions a changed credential opened are checked
        # again (core/identity/signed_in.py), on this replica and, by NOTIFY, on every one.
        self.on_drop: list[Callable[[], None]] = []

    @property
    def enabled(self) -> bool:
        return self.ttl > 0

    def get(self, key: str) -> Any | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            self._entries.pop(key, None)
            return None
        return entry[1]

    def put(self, key: str, value: Any, generation: int, ttl: float | None = None) -> None:
        """Remember `value` for `ttl` seconds (at most the cache's own) — unless the cache
        was dropped since the caller read it (`generation` is the one it saw before)."""
        if not self.enabled or generation != self.generation:
            return
        seconds = self.ttl if ttl is None else min(ttl, self.ttl)
        if seconds <= 0:
            return
        if len(self._entries) >= self.max_entries:
            self._entries.clear()  # bounded memory; the next requests read again
        self._entries[key] = (self._clock() + seconds, value)

    def drop(self, key: str) -> None:
        self._entries.pop(key, None)

    def drop_all(self) -> None:
        self.generation += 1
        self._entries.clear()
        for listener in self.on_drop:
            listener()


def watch_credential_writes(engine: Engine) -> None:
    """Mark a connection whose statement updated or deleted rows of `keys` or `users`."""

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.info.pop(_FLAG, None)  # left over by a transaction that was rolled back

    @event.listens_for(engine, "after_cursor_execute")
    def _after(
        conn: Connection, _cursor: Any, _sql: str, _params: Any, context: Any, _many: bool
    ) -> None:
        if context is None or not (context.isupdate or context.isdelete):
            return
        table = getattr(getattr(context.compiled, "statement", None), "table", None)
        if getattr(table, "name", None) in WATCHED_TABLES:
            conn.info[_FLAG] = True


def not_a_credential_change(session: Session) -> None:
    """The UPDATE this transaction made to `keys` changes no answer (a login's last use)."""
    session.connection().info.pop(_FLAG, None)


def credentials_written(session: Session) -> bool:
    """Did this transaction change credentials? (Asked once, at its end.)"""
    if not session.in_transaction():
        return False
    return bool(session.connection().info.pop(_FLAG, False))

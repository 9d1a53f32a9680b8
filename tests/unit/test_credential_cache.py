"""The credential cache's rules (core/store/credentials.py): expiry, drops, stale reads, bound."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from core.store.credentials import CredentialCache
from core.store.engine import Store
from core.store.migrate import migrate
from core.store.models import Key, User


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_lives_for_its_ttl_and_never_past_its_own_limit() -> None:
    clock = Clock()
    cache = CredentialCache(5, clock=clock)
    cache.put("a", "principal", cache.generation)
    cache.put("b", "short-lived", cache.generation, ttl=1)
    clock.now += 1.5
    assert cache.get("a") == "principal" and cache.get("b") is None
    clock.now += 4
    assert cache.get("a") is None


def test_a_read_that_began_before_a_drop_is_not_remembered() -> None:
    cache = CredentialCache(5)
    seen = cache.generation  # the reader takes it, then reads the database …
    cache.drop_all()  # … meanwhile a key is revoked and committed
    cache.put("a", "stale", seen)
    assert cache.get("a") is None
    cache.put("a", "fresh", cache.generation)
    assert cache.get("a") == "fresh"


def test_off_when_ttl_is_zero_and_bounded_in_size() -> None:
    off = CredentialCache(0)
    off.put("a", "x", off.generation)
    assert off.get("a") is None
    small = CredentialCache(5, max_entries=3)
    for name in "abcd":
        small.put(name, name, small.generation)
    assert small.get("d") == "d" and sum(small.get(n) is not None for n in "abcd") <= 3


async def test_a_write_to_keys_or_users_drops_the_cache_after_commit(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a.db'}", credential_ttl=5)
    try:
        await migrate(store)
        cache = store.credentials
        cache.put("a", "x", cache.generation)
        await store.write(lambda s: s.add(User(name="jianf", password_hash="h")))
        assert cache.get("a") == "x"  # a new row changes no answer
        await store.write(lambda s: s.execute(update(Key).values(label="renamed")))
        assert cache.get("a") is None  # an UPDATE of keys (even of no row) drops all
        cache.put("a", "x", cache.generation)

        def rename(session):  # type: ignore[no-untyped-def]
            session.get(User, session.query(User.id).scalar()).is_admin = True  # ORM flush

        await store.write(rename)
        assert cache.get("a") is None
    finally:
        await store.close()

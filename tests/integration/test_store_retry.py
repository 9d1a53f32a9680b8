"""A write that PostgreSQL aborts to break a deadlock runs again (core/store/engine.py).

Two writes lock the same two rows in opposite orders, each pausing between its
locks, so PostgreSQL must abort one (SQLSTATE 40P01). The store runs the aborted
one again, and both commit: the client of either never sees the deadlock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from core.store.engine import Store, Transaction
from core.store.engine import database_url as store_url
from core.store.models import Meta


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_deadlocked_write_runs_again_and_both_commit(database_url: str) -> None:
    store = Store(store_url(database_url, Path()))
    try:
        await store.write(lambda s: s.add_all([Meta(key="a", value="0"), Meta(key="b", value="0")]))
        attempts: list[str] = []

        def lock_both(first: str, second: str) -> Transaction[None]:
            def run(session: Session) -> None:
                attempts.append(first)
                session.scalar(select(Meta).where(Meta.key == first).with_for_update())
                session.execute(text("SELECT pg_sleep(0.3)"))
                row = session.scalar(select(Meta).where(Meta.key == second).with_for_update())
                assert row is not None
                row.value = str(int(row.value) + 1)

            return run

        await asyncio.gather(store.write(lock_both("a", "b")), store.write(lock_both("b", "a")))

        values = await store.read(lambda s: {m.key: m.value for m in s.scalars(select(Meta))})
        assert (values["a"], values["b"]) == ("1", "1")  # both writes committed, once each
        assert len(attempts) == 3  # one of them ran twice
    finally:
        await store.close()

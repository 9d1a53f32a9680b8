"""Prepared statements (core/store/prepared.py) run on SQLite's cursor
(core/store/sqlite/cursor.py) send what Core sends and read back what Core reads,
on a real SQLite database of the store's own engine: types processed both ways, defaults
filled, listeners told, driver errors raised as SQLAlchemy's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from core.store.models import UTCDateTime
from core.store.prepared import Prepared
from core.store.sqlite.engines import sqlite_engine

META = MetaData()
THINGS = Table(
    "things",
    META,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("name", String(20), unique=True, nullable=False),
    Column("tags", JSON, nullable=False),
    Column("done", Boolean, default=False, nullable=False),
    Column("count", Integer, default=0, nullable=False),
    Column("at", UTCDateTime(), nullable=False),
)
WHEN = datetime(2026, 12, 2, 7, 0, 1, 250000, tzinfo=UTC)
INSERT = Prepared(insert(THINGS).returning(THINGS.c.seq, THINGS.c.at))
INSERT_MANY = Prepared(insert(THINGS))
BUMP = Prepared(
    update(THINGS)
    .where(THINGS.c.name == bindparam("b_name"))
    .values(count=THINGS.c.count + bindparam("b_by"), done=True)
    .returning(THINGS.c.count, THINGS.c.tags, THINGS.c.at)
)
BY_NAME = Prepared(select(THINGS).where(THINGS.c.name == bindparam("name")))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = sqlite_engine(f"sqlite:///{tmp_path / 'things.db'}", "BEGIN", pool_size=1)
    META.create_all(engine)
    yield engine
    engine.dispose()


def test_rows_and_types_as_core_reads_them(engine: Engine) -> None:
    with engine.begin() as connection:
        row = INSERT.run(connection, {"name": "a", "tags": ["x", 1], "at": WHEN})
        assert row == [(1, WHEN)]
        INSERT_MANY.run(connection, [{"name": n, "tags": {"n": n}, "at": WHEN} for n in "bc"])
        assert BUMP.first(connection, {"b_name": "b", "b_by": 3}) == (3, {"n": "b"}, WHEN)
        prepared = BY_NAME.first(connection, {"name": "b"})
        core = connection.execute(select(THINGS).where(THINGS.c.name == "b")).one()
        assert prepared == tuple(core) == (2, "b", {"n": "b"}, True, 3, WHEN)
        assert BY_NAME.first(connection, {"name": "nobody"}) is None
    assert INSERT.forms and BY_NAME.forms  # compiled once for the cursor, not run by Core


def test_listeners_see_every_statement(engine: Engine) -> None:
    seen: list[tuple[str, Any]] = []

    def before(_c: object, _cur: object, sql: str, params: Any, *_: object) -> None:
        seen.append((sql.split()[0], params))

    event.listen(engine, "before_cursor_execute", before)
    with engine.begin() as connection:
        INSERT_MANY.run(connection, [{"name": n, "tags": [], "at": WHEN} for n in "ab"])
        BUMP.run(connection, {"b_name": "a", "b_by": 1})
    assert [verb for verb, _ in seen] == ["BEGIN", "INSERT", "UPDATE"]  # BEGIN: the engine's
    assert len(seen[1][1]) == 2  # one executemany for both rows


def test_driver_errors_are_sqlalchemy_errors(engine: Engine) -> None:
    with engine.begin() as connection:
        INSERT.run(connection, {"name": "a", "tags": [], "at": WHEN})
        with pytest.raises(IntegrityError):
            INSERT.run(connection, {"name": "a", "tags": [], "at": WHEN})


def test_credentials_are_never_prepared() -> None:
    users = Table("users", MetaData(), Column("name", String, primary_key=True))
    with pytest.raises(ValueError, match="credential"):
        Prepared(update(users).values(name="x"))


LISTED = Prepared(
    update(THINGS)
    .where(
        THINGS.c.seq.in_(bindparam("seqs", expanding=True)),
        THINGS.c.name.not_in(bindparam("names", expanding=True)),
    )
    .values(count=THINGS.c.count + 1)
    .returning(THINGS.c.seq)
)


def test_in_lists_as_core_expands_them(engine: Engine) -> None:
    """A list for an expanding `IN` parameter: one form per power of two, padded with
    its last value; empty or past `MAX_LISTED`, Core expands it. Same rows as Core."""
    names = [f"n{i}" for i in range(40)]
    with engine.begin() as connection:
        INSERT_MANY.run(connection, [{"name": n, "tags": [], "at": WHEN} for n in names])
        for seqs in ([3], [1, 2], [5, 6, 7], list(range(1, 18)), [], list(range(1, 5000))):
            for left_out in (["n0"], ["n1", "n2", "n3"]):
                params = {"seqs": seqs, "names": left_out}
                ours = sorted(row[0] for row in LISTED.run(connection, params))
                statement = LISTED.statement
                core = sorted(row[0] for row in connection.execute(statement, params))
                assert ours == core
                assert ours == sorted(s for s in seqs if s <= 40 and f"n{s - 1}" not in left_out)
    lengths = {key[-2:] for key in LISTED.forms}  # (names' length, seqs' length) bucketed
    assert lengths == {(1, 1), (4, 1), (1, 2), (4, 2), (1, 4), (4, 4), (1, 32), (4, 32)}

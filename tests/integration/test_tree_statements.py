"""Each tree chunk is one SQL statement on SQLite and PostgreSQL, counted on the store's engines."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from core.mail import tree
from core.principal import Principal
from core.store.engine import Store
from tests.integration.test_tree import HUMAN_MAIL, chain, chunk
from tests.support.gateway import Api, running_gateway


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """The SQL statements the store runs meanwhile (transaction control left out)."""
    engines: list[Engine] = (
        store.engines if store.dialect == "sqlite" else [store.engine.sync_engine]
    )
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.split()[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)


@pytest.fixture
async def quiet_api(database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    """A gateway without periodic jobs, whose own statements would be counted too."""
    async with running_gateway(database_url, tmp_path / "d", background_jobs=False) as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def test_each_chunk_is_one_statement(quiet_api: Api) -> None:
    api = quiet_api
    human, _, ids = await chain(api, 12)
    store = api.gateway.store
    assert store is not None
    jianf = Principal(kind="human", name="jianf")
    domain = api.gateway.settings.domain
    for mail_id in (ids[0], ids[6], ids[11]):
        for direction in ("around", "ancestors", "descendants"):
            with statements(store) as seen:
                await tree.mail_tree(store, domain, jianf, mail_id, direction=direction, limit=4)
            assert len(seen) == 1, (direction, seen)
            assert seen[0].lstrip().upper().startswith("WITH RECURSIVE")
    first = await tree.mail_tree(store, domain, jianf, ids[0], direction="descendants", limit=4)
    with statements(store) as seen:
        await tree.mail_tree(
            store,
            domain,
            jianf,
            ids[0],
            direction="descendants",
            limit=4,
            cursor=first.next_cursor_down,
        )
    assert len(seen) == 1
    # Over HTTP too: one statement touches the mails (the other one authenticates).
    with statements(store) as seen:
        await chunk(human, HUMAN_MAIL, ids[6])
    assert len([s for s in seen if "mails" in s]) == 1

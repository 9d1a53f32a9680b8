"""Sending a draft that changes underneath: the race the HTTP tests cannot time.

`send_draft` reads the draft, then sends it in a second transaction that deletes
the version it read. The store below lets a real second writer act exactly
between the two, on a real SQLite store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from core.errors import DraftChanged, NotFound
from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail import drafts
from core.mail.drafts import DraftInput
from core.principal import Principal
from core.store.engine import Store, T, Transaction, database_url
from core.store.migrate import migrate
from core.store.models import Mail

D = "agentmail.localhost"
JIANF = Principal(kind="human", name="jianf")


class InterleavingStore(Store):
    """A store that runs `between` once, right after the next read transaction."""

    between: Callable[[], Awaitable[object]] | None = None

    async def read(self, fn: Transaction[T]) -> T:
        result = await super().read(fn)
        if self.between is not None:
            between, self.between = self.between, None
            await between()
        return result


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[InterleavingStore]:
    set_bcrypt_rounds(4)
    store = InterleavingStore(database_url("", tmp_path / "agentmail.db"))
    await migrate(store)
    await create_user(store, "jianf", "password123")
    try:
        yield store
    finally:
        await store.close()


async def mail_count(store: Store) -> int:
    return await store.read(lambda s: int(s.scalar(select(func.count()).select_from(Mail)) or 0))


async def test_a_draft_saved_again_while_sending_is_not_sent(store: InterleavingStore) -> None:
    draft = await drafts.save_draft(store, D, JIANF, DraftInput(to="jianf@", body="first"))
    newer = DraftInput(to="jianf@", body="second")
    store.between = lambda: drafts.replace_draft(store, D, JIANF, draft.draft_id, newer)

    with pytest.raises(DraftChanged):
        await drafts.send_draft(store, D, JIANF, draft.draft_id)
    assert await mail_count(store) == 0
    kept = await drafts.get_draft(store, D, JIANF, draft.draft_id)
    assert kept.body == "second"

    # Sent again, the newer version goes out and the draft is gone.
    await drafts.send_draft(store, D, JIANF, draft.draft_id)
    assert await mail_count(store) == 1
    with pytest.raises(NotFound):
        await drafts.get_draft(store, D, JIANF, draft.draft_id)


async def test_a_draft_deleted_while_sending_is_not_sent(store: InterleavingStore) -> None:
    draft = await drafts.save_draft(store, D, JIANF, DraftInput(to="jianf@", body="text"))
    store.between = lambda: drafts.delete_draft(store, JIANF, draft.draft_id)

    with pytest.raises(NotFound):
        await drafts.send_draft(store, D, JIANF, draft.draft_id)
    assert await mail_count(store) == 0

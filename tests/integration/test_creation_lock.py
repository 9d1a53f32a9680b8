"""Only creating a conversation takes the creation lock (PostgreSQL).

The lock (an advisory lock, held to the commit on every replica) keeps two new
conversations from taking one alias or one pair's default conversation twice.
A send into a default conversation that exists took it too, before looking: so
every such send — most of them — waited for every other, across all replicas,
for the rest of its transaction. Now it takes only its conversation's row lock.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from core.mail.conversations import _CREATION_LOCK_KEY
from tests.support.gateway import Api
from tests.support.http import HUMAN_SEND, ok

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


async def test_a_send_into_an_existing_conversation_does_not_wait_for_a_creation(
    api: Api, database_url: str
) -> None:
    human = await api.human("jianf")
    await api.agent("builder")
    ok(await human.post(HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "first"}))

    url = make_url(database_url)
    holder = await asyncpg.connect(
        host=url.host, port=url.port, user=url.username, database=url.database
    )
    try:
        held = holder.transaction()
        await held.start()
        await holder.execute("SELECT pg_advisory_xact_lock($1)", _CREATION_LOCK_KEY)
        # A creation somewhere holds the lock: the default conversation's next mail goes on.
        again = {"to": "builder@ModelRouter", "subject": "again"}
        ok(await asyncio.wait_for(human.post(HUMAN_SEND, json=again), 30))
        # A new conversation waits for it, as it must.
        new = asyncio.ensure_future(
            human.post(HUMAN_SEND, json={"to": "builder@ModelRouter.new", "subject": "new"})
        )
        await asyncio.sleep(0.5)
        assert not new.done()
        await held.rollback()
        ok(await asyncio.wait_for(new, 30))
    finally:
        await holder.close()

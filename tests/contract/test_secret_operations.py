"""The store operations of core/secrets, run the same way on SQLite and PostgreSQL: the
secret key's fingerprint recorded at the first start and checked at the next, a secret
made once and read back, and a value from before sealing sealed in place."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.secrets.box import SecretBox, is_sealed
from core.secrets.stored import SecretKeyMismatch, check_secret_key, ensure_secret, read_secret
from core.store.engine import Store
from core.store.models import Meta
from tests.contract.scenario import assert_same_rows
from tests.support.two_stores import Stores

BOX = SecretBox(b"the contract suite's secret key, 32+ characters")


async def fingerprint_and_secrets(store: Store) -> None:
    await check_secret_key(store, BOX)
    await check_secret_key(store, BOX)
    with pytest.raises(SecretKeyMismatch):
        await check_secret_key(store, SecretBox(b"another gateway's key, 32+ characters"))
    made = await ensure_secret(store, BOX, "reply_token_key", lambda: b"0123456789abcdef")
    assert made == b"0123456789abcdef"
    assert await ensure_secret(store, BOX, "reply_token_key", lambda: b"other") == made
    assert await read_secret(store, BOX, "reply_token_key") == made
    await store.write(lambda s: s.add(Meta(key="old_plain_secret", value="kept as it was")))
    assert await ensure_secret(store, BOX, "old_plain_secret", lambda: b"x") == b"kept as it was"
    row = await store.read(
        lambda s: s.scalar(select(Meta.value).where(Meta.key == "old_plain_secret"))
    )
    assert row is not None and is_sealed(row)


async def test_both_backends_leave_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, fingerprint_and_secrets)

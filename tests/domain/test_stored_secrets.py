"""Secrets in the database (core/secrets/stored.py): made once whichever replica is
first, kept sealed (the row never holds the secret), a value from before sealing sealed
in place, and a replica with another secret key refused at start."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from core.secrets.box import SecretBox, is_sealed
from core.secrets.stored import SecretKeyMismatch, check_secret_key, ensure_secret, read_secret
from core.store.engine import Store
from core.store.models import Meta

BOX = SecretBox(b"the domain suite's secret key, 32+ characters")


async def _row(store: Store, name: str) -> str | None:
    return await store.read(lambda s: s.scalar(select(Meta.value).where(Meta.key == name)))


async def test_replicas_starting_together_agree_on_one_secret(store: Store) -> None:
    made = iter(range(100))
    values = await asyncio.gather(
        *(
            ensure_secret(store, BOX, "dkim_key", lambda: f"dkim-private-key-{next(made)}".encode())
            for _ in range(4)
        )
    )
    assert len(set(values)) == 1
    row = await _row(store, "dkim_key")
    assert row is not None and is_sealed(row) and b"dkim-private" not in row.encode()
    assert await read_secret(store, BOX, "dkim_key") == values[0]
    assert await read_secret(store, BOX, "no_such_secret") is None


async def test_a_value_stored_before_sealing_is_sealed_in_place(store: Store) -> None:
    await store.write(lambda s: s.add(Meta(key="vapid_private_key", value="legacy-plain")))
    assert await ensure_secret(store, BOX, "vapid_private_key", lambda: b"new") == b"legacy-plain"
    row = await _row(store, "vapid_private_key")
    assert row is not None and is_sealed(row)
    assert await ensure_secret(store, BOX, "vapid_private_key", lambda: b"new") == b"legacy-plain"


async def test_a_replica_with_another_secret_key_is_refused(store: Store) -> None:
    await check_secret_key(store, BOX)
    await check_secret_key(store, BOX)
    with pytest.raises(SecretKeyMismatch, match="AGENTMAIL_SECRET_KEY"):
        await check_secret_key(store, SecretBox(b"another replica's key, 32+ characters"))

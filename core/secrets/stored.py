"""Sealed secrets in `meta` rows: made once, whichever replica is first, read by all.

Replicas starting together each try to insert their fresh value and all read back the one
that was first (insert-if-missing, then read), so every replica ends with the same key.
The fingerprint row says which secret key sealed them: a replica started with another
key refuses to start, naming the setting, instead of failing on the first push or
signature.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.secrets.box import SecretBox, is_sealed
from core.store.engine import Store
from core.store.models import Meta

__all__ = [
    "SecretKeyMismatch",
    "check_secret_key",
    "ensure_secret",
    "read_secret",
    "replace_secret",
]

_FINGERPRINT = "secret_key_fingerprint"


class SecretKeyMismatch(Exception):
    """This replica's secret key is not the one the database's secrets were sealed with."""


def _insert_missing(session: Session, dialect: str, key: str, value: str) -> None:
    module = postgresql if dialect == "postgresql" else sqlite
    insert = module.insert(Meta).values(key=key, value=value)
    session.execute(insert.on_conflict_do_nothing(index_elements=["key"]))


async def check_secret_key(store: Store, box: SecretBox) -> None:
    def run(session: Session) -> str:
        _insert_missing(session, store.dialect, _FINGERPRINT, box.fingerprint)
        value = session.scalar(select(Meta.value).where(Meta.key == _FINGERPRINT))
        assert value is not None
        return value

    if await store.write(run) != box.fingerprint:
        raise SecretKeyMismatch(
            "the database's secrets were sealed under another secret key: set"
            " AGENTMAIL_SECRET_KEY to the same value on every replica (docs/deploy.md)"
        )


async def read_secret(store: Store, box: SecretBox, name: str) -> bytes | None:
    value = await store.read(lambda s: s.scalar(select(Meta.value).where(Meta.key == name)))
    return None if value is None else box.open(value, name)


async def ensure_secret(
    store: Store, box: SecretBox, name: str, make: Callable[[], bytes]
) -> bytes:
    """The secret `name`, made by `make` when there is none. A value stored before secrets
    were sealed is sealed in place the first time it is read."""
    existing = await store.read(lambda s: s.scalar(select(Meta.value).where(Meta.key == name)))
    if existing is not None and is_sealed(existing):
        return box.open(existing, name)
    if existing is not None:
        plain = existing.encode("utf-8")
        sealed = box.seal(plain, name)

        def reseal(session: Session) -> None:
            session.execute(
                update(Meta).where(Meta.key == name, Meta.value == existing).values(value=sealed)
            )

        await store.write(reseal)
        return plain

    def insert(session: Session) -> str:
        _insert_missing(session, store.dialect, name, box.seal(make(), name))
        value = session.scalar(select(Meta.value).where(Meta.key == name))
        assert value is not None
        return value

    return box.open(await store.write(insert), name)


async def replace_secret(store: Store, box: SecretBox, name: str, value: bytes) -> None:
    """Store `value` sealed as the secret `name`, in place of any before it: a key an
    admin makes on purpose (DKIM's, `agentmail dkim generate`), not one made at start."""
    sealed = box.seal(value, name)

    def run(session: Session) -> None:
        _insert_missing(session, store.dialect, name, sealed)
        session.execute(update(Meta).where(Meta.key == name).values(value=sealed))

    await store.write(run)

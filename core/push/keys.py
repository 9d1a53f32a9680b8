"""The gateway's VAPID key pair (RFC 8292), one for every replica, kept in the database.

A browser subscribes with the public key as its `applicationServerKey`, and its push
service accepts only pushes signed with the matching private key: a key per process
would break every subscription made through another replica, or before a restart.
So the first start writes the pair into a `meta` row and every replica reads it.
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import Meta

_KEY = "vapid_private_key"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _new_private_key() -> str:
    """A fresh P-256 private key: its 32-byte scalar, base64url."""
    scalar = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return b64url(scalar.to_bytes(32, "big"))


def private_key_of(raw: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(b64url_decode(raw), "big"), ec.SECP256R1())


def public_key_of(raw: str) -> str:
    """The application server key a browser subscribes with: the uncompressed point."""
    point = (
        private_key_of(raw).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    return b64url(point)


async def ensure_vapid_key(store: Store) -> str:
    """The stored private key; made now when there is none. Replicas starting together
    each try to insert theirs and all read back the one that was first."""

    def run(session: Session) -> str:
        dialect = postgresql if store.dialect == "postgresql" else sqlite
        insert = dialect.insert(Meta).values(key=_KEY, value=_new_private_key())
        session.execute(insert.on_conflict_do_nothing(index_elements=["key"]))
        value = session.scalar(select(Meta.value).where(Meta.key == _KEY))
        assert value is not None
        return value

    existing = await read_vapid_key(store)
    return existing if existing is not None else await store.write(run)


async def read_vapid_key(store: Store) -> str | None:
    return await store.read(lambda s: s.scalar(select(Meta.value).where(Meta.key == _KEY)))

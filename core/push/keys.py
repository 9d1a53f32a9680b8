"""The gateway's VAPID key pair (RFC 8292), one for every replica, kept in the database.

A browser subscribes with the public key as its `applicationServerKey`, and its push
service accepts only pushes signed with the matching private key: a key per process
would break every subscription made through another replica, or before a restart.
So the first start writes the pair, sealed, into a `meta` row and every replica reads it.
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from core.secrets.box import SecretBox
from core.secrets.stored import ensure_secret
from core.store.engine import Store

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


async def ensure_vapid_key(store: Store, box: SecretBox) -> str:
    """The stored private key; made now when there is none (core/secrets/stored.py)."""
    key = await ensure_secret(store, box, _KEY, lambda: _new_private_key().encode("ascii"))
    return key.decode("ascii")

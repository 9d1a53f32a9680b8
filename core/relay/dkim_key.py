"""The gateway's DKIM key (RFC 6376): made by an admin, kept sealed in the database,
used by every replica to sign outbound mail.

`agentmail dkim generate` makes an RSA-2048 (the default: every receiver verifies it)
or an Ed25519 key (RFC 8463; receivers that do not know it treat the signature as
absent) and prints the TXT record to publish at `<selector>._domainkey.<domain>`.
The key is one sealed secret (core/secrets): its selector, algorithm and private key.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Literal

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from core.secrets.box import SecretBox
from core.secrets.stored import read_secret, replace_secret
from core.store.engine import Store

__all__ = [
    "DKIM_SECRET",
    "SIGNED_HEADERS",
    "DkimKey",
    "generate_dkim_key",
    "load_dkim_key",
    "save_dkim_key",
]

DKIM_SECRET = "dkim_key"
Algorithm = Literal["rsa", "ed25519"]
# RFC 6376 §5.4.1's recommended set, as far as our renderings carry them.
SIGNED_HEADERS = (
    "From",
    "To",
    "Cc",
    "Reply-To",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "MIME-Version",
    "Content-Type",
)


@dataclass(frozen=True, slots=True)
class DkimKey:
    selector: str
    algorithm: Algorithm
    private: bytes  # RSA: PKCS#1 PEM; Ed25519: the base64 seed (dkimpy's forms)
    public: str  # the record's `p=`: base64 DER SubjectPublicKeyInfo, or the raw Ed25519 key

    def record_name(self, domain: str) -> str:
        return f"{self.selector}._domainkey.{domain}"

    def record(self) -> str:
        """The TXT record's text (RFC 6376 §3.6.1)."""
        return f"v=DKIM1; k={self.algorithm}; p={self.public}"

    def sign(self, message: bytes, domain: str) -> bytes:
        """The `DKIM-Signature:` header line for `message` (to put before it)."""
        algorithm = b"ed25519-sha256" if self.algorithm == "ed25519" else b"rsa-sha256"
        present = {line.split(b":", 1)[0].strip().lower() for line in _header_lines(message)}
        headers = [h.encode() for h in SIGNED_HEADERS if h.lower().encode() in present]
        signature: bytes = dkim.sign(
            message,
            self.selector.encode(),
            domain.encode(),
            self.private,
            signature_algorithm=algorithm,
            include_headers=headers,
        )
        return signature


def _header_lines(message: bytes) -> list[bytes]:
    head = message.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return [line for line in head.splitlines() if line and not line[:1].isspace()]


def generate_dkim_key(selector: str, algorithm: Algorithm = "rsa") -> DkimKey:
    if algorithm == "ed25519":
        key = ed25519.Ed25519PrivateKey.generate()
        seed = key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        public = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        return DkimKey(
            selector, algorithm, base64.b64encode(seed), base64.b64encode(public).decode()
        )
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = rsa_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    der = rsa_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return DkimKey(selector, "rsa", pem, base64.b64encode(der).decode())


async def save_dkim_key(store: Store, box: SecretBox, key: DkimKey) -> None:
    value = {
        "selector": key.selector,
        "algorithm": key.algorithm,
        "private": key.private.decode("ascii"),
        "public": key.public,
    }
    await replace_secret(store, box, DKIM_SECRET, json.dumps(value).encode())


async def load_dkim_key(store: Store, box: SecretBox) -> DkimKey | None:
    """The key outbound mail is signed with; None until an admin made one."""
    sealed = await read_secret(store, box, DKIM_SECRET)
    if sealed is None:
        return None
    value = json.loads(sealed)
    return DkimKey(
        value["selector"], value["algorithm"], value["private"].encode("ascii"), value["public"]
    )

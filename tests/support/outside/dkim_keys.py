"""DKIM keys of the outside world: a domain's signing key and the TXT record it publishes.

The human "sending from outside" signs as their provider would (RFC 6376), with dkimpy
and a key made for the test world; the DNS server publishes its public half at
`<selector>._domainkey.<domain>`, so a verifier that asks the test DNS finds it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

# What a provider signs: enough that a changed subject, sender or body fails the check.
SIGNED_HEADERS = (
    b"from",
    b"to",
    b"cc",
    b"subject",
    b"date",
    b"message-id",
    b"reply-to",
    b"in-reply-to",
    b"references",
    b"mime-version",
    b"content-type",
)


@dataclass(frozen=True, slots=True)
class DkimKey:
    domain: str
    selector: str
    private_pem: bytes = field(repr=False)
    public_der: bytes = field(repr=False)

    @property
    def record_name(self) -> str:
        """Where the public key is published (RFC 6376 §3.6.2.1)."""
        return f"{self.selector}._domainkey.{self.domain}"

    @property
    def record_text(self) -> str:
        """The TXT record's text (RFC 6376 §3.6.1)."""
        return f"v=DKIM1; k=rsa; p={base64.b64encode(self.public_der).decode()}"

    def sign(self, message: bytes, domain: str | None = None) -> bytes:
        """`message` with a DKIM-Signature of this key prepended; `d=` is `domain` when
        given (a signature of another domain, for an unaligned pass)."""
        signature = dkim.sign(
            message,
            self.selector.encode(),
            (domain or self.domain).encode(),
            self.private_pem,
            include_headers=[name for name in SIGNED_HEADERS if _has_header(message, name)],
        )
        return bytes(signature) + message


def _has_header(message: bytes, name: bytes) -> bool:
    head = message.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return any(line.lower().startswith(name + b":") for line in head.splitlines())


def make_key(domain: str, selector: str = "sel", bits: int = 2048) -> DkimKey:
    """A fresh RSA key for `domain` (RFC 8301: at least 1024 bits; 2048 as published)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    public_der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return DkimKey(domain, selector, private_pem, public_der)

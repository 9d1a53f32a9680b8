"""Sealing secrets for the database: AES-256-GCM under the gateway's secret key.

Keys every replica needs (the VAPID pair, the DKIM key, the reply-token MAC key, webhook
secrets) live in rows, so that no replica depends on another's disk. A database dump
alone must not give them away, so each is sealed under a key from the settings
(`AGENTMAIL_SECRET_KEY`), or, on one machine without it, a key file made in the data dir
at first start. The purpose is the associated data: a value sealed as one secret cannot
be passed off as another.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = [
    "KEY_FILE_NAME",
    "MIN_SECRET_KEY_CHARS",
    "SEALED_PREFIX",
    "SecretBox",
    "SecretUnreadable",
    "box_from_key_file",
    "box_from_text",
]

SEALED_PREFIX: Final = "sealed:v1:"
KEY_FILE_NAME: Final = "secret.key"
MIN_SECRET_KEY_CHARS: Final = 32
_NONCE_BYTES: Final = 12
_KDF_INFO: Final = b"agentmail sealed secrets v1"
_CHECK_LABEL: Final = b"agentmail secret key check v1"


class SecretUnreadable(Exception):
    """A sealed value this key cannot open: another key sealed it, or it was altered."""


class SecretBox:
    """Seals and opens short secrets; the text form is `sealed:v1:` + base64url."""

    def __init__(self, key_material: bytes) -> None:
        derived = HKDF(hashes.SHA256(), length=32, salt=None, info=_KDF_INFO).derive(key_material)
        self._aead = AESGCM(derived)
        self._check = hmac.new(derived, _CHECK_LABEL, hashlib.sha256).hexdigest()

    @property
    def fingerprint(self) -> str:
        """Says which key this is without saying the key: replicas compare it at start."""
        return self._check

    def seal(self, plaintext: bytes, purpose: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, plaintext, purpose.encode("utf-8"))
        return SEALED_PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")

    def open(self, text: str, purpose: str) -> bytes:
        if not is_sealed(text):
            raise SecretUnreadable(f"{purpose}: not a sealed value")
        try:
            raw = base64.urlsafe_b64decode(text[len(SEALED_PREFIX) :])
            nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
            return self._aead.decrypt(nonce, sealed, purpose.encode("utf-8"))
        except (InvalidTag, ValueError) as error:
            raise SecretUnreadable(
                f"{purpose}: sealed under another secret key, or altered"
            ) from error


def is_sealed(text: str) -> bool:
    return text.startswith(SEALED_PREFIX)


def box_from_text(text: str) -> SecretBox:
    """The box of `AGENTMAIL_SECRET_KEY`: any text of at least 32 characters."""
    if len(text) < MIN_SECRET_KEY_CHARS:
        raise ValueError(
            f"AGENTMAIL_SECRET_KEY must be at least {MIN_SECRET_KEY_CHARS} characters"
            " (make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return SecretBox(text.encode("utf-8"))


def box_from_key_file(data_dir: Path) -> SecretBox:
    """The data dir's key file, made (mode 0600) when there is none."""
    path = data_dir / KEY_FILE_NAME
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
    return box_from_text(path.read_text("utf-8").strip())

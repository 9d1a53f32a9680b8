"""Secrets: password hashing (bcrypt, off the event loop) and API tokens (SHA-256 at rest).

Tokens are 256 random bits, so a fast hash is enough to store them safely;
bcrypt is kept for passwords, which are guessable.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets

import bcrypt

from core import metrics

TOKEN_PREFIX = {"agent": "amk_", "user": "amu_", "login": "ams_"}


def new_token(kind: str) -> str:
    return TOKEN_PREFIX[kind] + secrets.token_urlsafe(32)


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# A fresh secret per process: the cache's keys of verified passwords
# (core/store/credentials.py) are worthless outside this process's memory.
_REMEMBER_KEY = secrets.token_bytes(32)


def remembered_password_key(name: str, password: str) -> str:
    """The in-memory cache key of a verified (name, password): a keyed hash (HMAC-SHA256),
    never the password, so what is remembered cannot be checked against offline."""
    message = name.encode("utf-8") + b"\0" + password.encode("utf-8")
    return "password:" + hmac.new(_REMEMBER_KEY, message, hashlib.sha256).hexdigest()


def password_stamp(hashed: str) -> str:
    """What a password session keeps of the hash its password matched: a digest that
    changes whenever the password is set again (a new bcrypt salt each time), and that
    cannot be checked against guesses as the hash itself could."""
    return hashlib.sha256(hashed.encode("ascii")).hexdigest()[:32]


def new_password() -> str:
    return secrets.token_urlsafe(15)


_bcrypt_rounds = 12


def set_bcrypt_rounds(rounds: int) -> None:
    """Cost of new password hashes (4-31); existing hashes keep their own."""
    global _bcrypt_rounds
    if not 4 <= rounds <= 31:
        raise ValueError("bcrypt rounds must be between 4 and 31")
    _bcrypt_rounds = rounds


def _hash_password(password: str) -> str:
    # bcrypt reads at most 72 bytes; pre-hash so long passphrases keep all their entropy.
    digest = hashlib.sha256(password.encode("utf-8")).hexdigest().encode("ascii")
    return bcrypt.hashpw(digest, bcrypt.gensalt(_bcrypt_rounds)).decode("ascii")


def _check_password(password: str, hashed: str) -> bool:
    digest = hashlib.sha256(password.encode("utf-8")).hexdigest().encode("ascii")
    try:
        return bcrypt.checkpw(digest, hashed.encode("ascii"))
    except ValueError:
        return False


# A real hash to compare against when the user does not exist, so a login for an
# unknown name costs as long as one for a known name.
_DUMMY_HASH = bcrypt.hashpw(b"unknown user", bcrypt.gensalt(4)).decode("ascii")


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hash_password, password)


async def check_password(password: str, hashed: str | None) -> bool:
    metrics.PASSWORD_CHECKS.inc()
    if hashed is None:
        # Spend what a real check costs, so unknown names cannot be told apart by timing.
        await asyncio.to_thread(_hash_password, password)
        return False
    ok = await asyncio.to_thread(_check_password, password, hashed)
    return ok

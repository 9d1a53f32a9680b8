"""Reply tokens: the `<token>` of `reply+<token>@<domain>`, the Reply-To of a request's
copy sent to a human's external address.

A token is `<id><mac>`, 42 characters of lower-case base32 (RFC 4648 §6, `a-z2-7`: the
characters survive any relay's case folding and are all dot-atom `atext`):

- `id`, 16 characters (80 random bits): the `reply_tokens` row it was issued as;
- `mac`, 26 characters: the first 128 bits of HMAC-SHA256 (RFC 2104) under the
  gateway's reply-token key, over the id, the request's mail id, the human and the
  external address. The MAC is never stored: a database reader cannot make a token,
  and a token made up or altered fails the constant-time comparison.

The key is 32 random bytes kept sealed in the database (core/secrets/stored.py), the
same for every replica. Parsing is strict and bounded: a token longer or shorter than
42 characters, or with any other character, is refused before anything else is done.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

from core.secrets.box import SecretBox
from core.secrets.stored import ensure_secret
from core.store.engine import Store

__all__ = [
    "ID_LENGTH",
    "LOCAL_PREFIX",
    "TOKEN_LENGTH",
    "ParsedToken",
    "ensure_reply_key",
    "new_token_id",
    "parse_reply_address",
    "parse_token",
    "token_for",
    "token_matches",
]

KEY_NAME: Final = "reply_token_key"
LOCAL_PREFIX: Final = "reply+"
ID_LENGTH: Final = 16  # 10 bytes
MAC_LENGTH: Final = 26  # 16 bytes, unpadded
TOKEN_LENGTH: Final = ID_LENGTH + MAC_LENGTH
_ALPHABET: Final = frozenset("abcdefghijklmnopqrstuvwxyz234567")
_MAX_ADDRESS: Final = 254  # RFC 5321 §4.5.3.1: nothing longer is a path to look at
_CONTEXT: Final = b"agentmail reply token v1"


@dataclass(frozen=True, slots=True)
class ParsedToken:
    id: str
    mac: str

    @property
    def text(self) -> str:
        return self.id + self.mac


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").rstrip("=").lower()


def new_token_id() -> str:
    """A fresh token id: 80 bits from the OS's CSPRNG."""
    return _b32(secrets.token_bytes(10))


def _mac(key: bytes, token_id: str, mail_id: str, owner: str, address: str) -> str:
    message = b"\0".join(
        part.encode("utf-8") for part in (token_id, mail_id, owner, address.lower())
    )
    digest = hmac.new(key, _CONTEXT + b"\0" + message, hashlib.sha256).digest()
    return _b32(digest[:16])


def token_for(key: bytes, token_id: str, mail_id: str, owner: str, address: str) -> str:
    """The token issued as `token_id` for the request `mail_id` sent to `owner`'s
    external `address`."""
    return token_id + _mac(key, token_id, mail_id, owner, address)


def token_matches(key: bytes, token: ParsedToken, mail_id: str, owner: str, address: str) -> bool:
    """Whether `token`'s MAC is the one issued for these (constant-time comparison)."""
    expected = _mac(key, token.id, mail_id, owner, address)
    return hmac.compare_digest(expected.encode("ascii"), token.mac.encode("ascii"))


def parse_token(text: str) -> ParsedToken | None:
    """`text` as a token, or None: exactly 42 base32 characters (either case)."""
    if len(text) != TOKEN_LENGTH:
        return None
    token = text.lower()
    if not all(c in _ALPHABET for c in token):
        return None
    return ParsedToken(token[:ID_LENGTH], token[ID_LENGTH:])


def parse_reply_address(text: str, domain: str) -> ParsedToken | None:
    """`reply+<token>@<domain>` (a path's angle brackets allowed) as its token; None
    for anything else, however malformed or long."""
    if len(text) > _MAX_ADDRESS + 2:
        return None
    path = text.strip()
    if path.startswith("<") and path.endswith(">"):
        path = path[1:-1]
    local, at, at_domain = path.rpartition("@")
    if not at or at_domain.lower().rstrip(".") != domain.lower():
        return None
    if local[: len(LOCAL_PREFIX)].lower() != LOCAL_PREFIX:
        return None
    return parse_token(local[len(LOCAL_PREFIX) :])


async def ensure_reply_key(store: Store, box: SecretBox) -> bytes:
    """The gateway's reply-token key, made at first use (32 random bytes)."""
    return await ensure_secret(store, box, KEY_NAME, lambda: secrets.token_bytes(32))

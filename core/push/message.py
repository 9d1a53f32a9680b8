"""One push as it goes on the wire: the payload encrypted for the browser (RFC 8291,
`aes128gcm`) and the request signed with the gateway's VAPID key (RFC 8292).

py-vapid and http-ece do the cryptography (they ship no type information: this module
is the one place that calls them); the gateway sends the request itself, with httpx.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from core.push.keys import b64url_decode, private_key_of

# How long a push service keeps a push for a browser that is offline (RFC 8030 §5.2).
TTL_SECONDS = 24 * 3600
# A push service takes at most 4096 bytes of ciphertext (RFC 8291 §4): the payload is small.
MAX_PAYLOAD_BYTES = 3000


@dataclass(frozen=True, slots=True)
class Target:
    endpoint: str
    p256dh: str
    auth: str


@dataclass(frozen=True, slots=True)
class Request:
    url: str
    headers: dict[str, str]
    body: bytes


def encrypt(payload: dict[str, Any], target: Target) -> bytes:
    """The payload, as JSON, readable only by the browser that subscribed."""
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    if len(data) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"a push payload of {len(data)} bytes is over {MAX_PAYLOAD_BYTES}")
    body: bytes = http_ece.encrypt(
        data,
        private_key=ec.generate_private_key(ec.SECP256R1()),  # one per message
        dh=b64url_decode(target.p256dh),
        auth_secret=b64url_decode(target.auth),
        version="aes128gcm",
    )
    return body


def vapid_authorization(private_key: str, endpoint: str, contact: str) -> str:
    """`Authorization: vapid t=…, k=…` for the push service of `endpoint`, valid 12 hours."""
    parts = urlsplit(endpoint)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + 12 * 3600,
        "sub": contact,
    }
    signed: dict[str, str] = Vapid02(private_key_of(private_key)).sign(claims)
    return signed["Authorization"]


def push_request(
    payload: dict[str, Any], target: Target, private_key: str, contact: str
) -> Request:
    headers = {
        "Authorization": vapid_authorization(private_key, target.endpoint, contact),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(TTL_SECONDS),
        "Urgency": "high",  # a person is waiting on an agent
    }
    return Request(target.endpoint, headers, encrypt(payload, target))

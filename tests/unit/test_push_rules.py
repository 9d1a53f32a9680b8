"""Web Push's small rules: what a push service's answer means for the job, the backoff,
which endpoints pass without a resolver (IP literals), and the encrypted body's size."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from core.errors import InvalidRequest
from core.push.endpoints import check_endpoint
from core.push.jobs import backoff
from core.push.keys import b64url
from core.push.message import MAX_PAYLOAD_BYTES, Target, encrypt, push_request
from core.push.payload import request_payload
from core.push.sender import outcome_of


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (201, "sent"),
        (202, "sent"),
        (404, "gone"),
        (410, "gone"),
        (429, "retry"),
        (500, "retry"),
        (503, "retry"),
        (400, "dropped"),
        (403, "dropped"),
        (413, "dropped"),
    ],
)
def test_what_an_answer_means(status: int, outcome: str) -> None:
    assert outcome_of(status) == outcome


def test_backoff_doubles_up_to_ten_minutes() -> None:
    assert [backoff(n).seconds for n in (1, 2, 3)] == [5, 10, 20]
    assert backoff(30) == timedelta(minutes=10)


async def test_public_addresses_pass_and_the_setting_lifts_the_rules() -> None:
    await check_endpoint("https://1.1.1.1/push/x", allow_private=False)
    await check_endpoint("https://[2606:4700:4700::1111]/push/x", allow_private=False)
    await check_endpoint("http://127.0.0.1:8090/notify/x", allow_private=True)
    with pytest.raises(InvalidRequest):
        await check_endpoint("https://100.64.0.1/x", allow_private=False)  # shared (CGNAT)
    with pytest.raises(InvalidRequest):
        await check_endpoint("https://224.0.0.1/x", allow_private=False)  # multicast


def _target() -> Target:
    browser = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = browser.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return Target("https://push.example.com/x", b64url(point), b64url(os.urandom(16)))


def test_a_request_is_signed_for_its_push_service_and_encrypted() -> None:
    key = b64url(
        ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value.to_bytes(32, "big")
    )
    payload = request_payload("question", "m" * 36, "s" * 36, "builder")
    request = push_request(payload, _target(), key, "mailto:postmaster@agentmail.localhost")
    assert request.headers["Authorization"].startswith("vapid t=")
    assert request.headers["Content-Encoding"] == "aes128gcm"
    assert b"builder" not in request.body
    with pytest.raises(ValueError):
        encrypt({"x": "y" * MAX_PAYLOAD_BYTES}, _target())

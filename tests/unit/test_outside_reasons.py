"""Each reason core/replies/inbound.py stores has its stable word (core/replies/marks.py),
so a client says it in its own language; a reason it does not know reads as `other`."""

from __future__ import annotations

import pytest

from core.replies import inbound
from core.replies.marks import reason_code


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        (inbound.VERIFIED, "verified"),
        (inbound.OTHER_ADDRESS, "other_address"),
        (f"{inbound.NO_DOMAIN_PROOF}: dmarc=fail", "no_domain_proof"),
        (inbound.ALREADY_USED, "already_used"),
        (inbound.ADDRESS_GONE, "address_gone"),
        (inbound.NOT_A_REPLY, "not_a_reply"),
        ("verified but not quite", "other"),
        ("", "other"),
    ],
)
def test_reason_words(reason: str, code: str) -> None:
    assert reason_code(reason) == code

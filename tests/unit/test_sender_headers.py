"""The headers a submission server checks and adds (RFC 6409 §8)."""

from __future__ import annotations

import pytest

from smtp_in.sender_headers import foreign_address_in_name, with_added_headers

D = "agentmail.localhost"


def _own(address: str) -> bool:
    return address.lower() in {f"alice@{D}", f"alice+box@{D}"}


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (f"bob@{D}", f"bob@{D}"),
        (f"Alice (really bob@{D})", f"bob@{D}"),
        ("support@example.com", "support@example.com"),
        (f"alice@{D}", None),
        (f"ALICE+box@{D}.", None),
        ("Alice Martin", None),
        ("Team @ Work", None),
        # Look-alikes read as they are shown.
        (f"bob\uff20{D}", f"bob@{D}"),  # full-width @
        (f"bob\ufe6b{D}", f"bob@{D}"),  # small @
        (f"bob @ {D}", f"bob@{D}"),
        (f"bob\u00a0@\u3000{D}", f"bob@{D}"),  # no-break and ideographic spaces
        ("bob@agentmail\u3002localhost", f"bob@{D}"),  # ideographic full stop
        ("bob@agentmail\uff0elocalhost", f"bob@{D}"),  # full-width full stop
        (f"bob@\u200b{D}", f"bob@{D}"),  # zero-width space
        (f"\uff41\uff4c\uff49\uff43\uff45\uff20{D}", None),  # full-width "alice": hers
        (f"alice @ {D}", None),
        ("b\u043eb@example.com", "b\\u043eb@example.com"),  # a Cyrillic o, in ASCII
        ("Team @ Work.", None),
        ("", None),
    ],
)
def test_a_display_name_may_show_only_the_senders_address(name: str, shown: str | None) -> None:
    assert foreign_address_in_name([(name, f"alice@{D}")], _own) == shown


@pytest.mark.parametrize(
    ("raw", "added"),
    [
        (b"Subject: x\r\n\r\nbody\r\n", b"From: <alice@D>\r\nSubject: x\r\n\r\nbody\r\n"),
        (b"Subject: x\n\nbody\n", b"From: <alice@D>\nSubject: x\n\nbody\n"),
        (b"\r\nbody\r\n", b"From: <alice@D>\r\n\r\nbody\r\n"),
        # No header at all: the body stays a body.
        (b"just a line\r\n", b"From: <alice@D>\r\n\r\njust a line\r\n"),
    ],
)
def test_a_missing_from_is_put_in_front(raw: bytes, added: bytes) -> None:
    assert with_added_headers(raw, sender="alice@D", message_id=None) == added


def test_nothing_missing_changes_nothing() -> None:
    raw = b"From: alice@D\r\nMessage-ID: <a@b>\r\n\r\nhi\r\n"
    assert with_added_headers(raw, sender=None, message_id=None) == raw

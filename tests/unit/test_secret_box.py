"""Sealed secrets (core/secrets/box.py): what one key seals only that key opens, for the
same purpose, and an altered value is refused rather than read as another secret."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.secrets.box import (
    SEALED_PREFIX,
    SecretBox,
    SecretUnreadable,
    box_from_key_file,
    box_from_text,
)

KEY = "one gateway's secret key, long enough to seal"


@given(st.binary(max_size=4096), st.text(min_size=1, max_size=40))
def test_what_is_sealed_opens_again(plaintext: bytes, purpose: str) -> None:
    box = box_from_text(KEY)
    sealed = box.seal(plaintext, purpose)
    assert sealed.startswith(SEALED_PREFIX)
    assert box.open(sealed, purpose) == plaintext


def test_the_same_secret_seals_differently_each_time() -> None:
    box = box_from_text(KEY)
    assert box.seal(b"dkim key", "dkim") != box.seal(b"dkim key", "dkim")


def test_another_key_or_purpose_or_an_altered_value_is_refused() -> None:
    box = box_from_text(KEY)
    sealed = box.seal(b"the reply-token MAC key", "reply_token_key")
    with pytest.raises(SecretUnreadable):
        box_from_text(KEY + "!").open(sealed, "reply_token_key")
    with pytest.raises(SecretUnreadable):
        box.open(sealed, "webhook_secret")
    flipped = sealed[:-3] + ("A" if sealed[-3] != "A" else "B") + sealed[-2:]
    with pytest.raises(SecretUnreadable):
        box.open(flipped, "reply_token_key")
    with pytest.raises(SecretUnreadable):
        box.open("plain text", "reply_token_key")
    with pytest.raises(SecretUnreadable):
        box.open(SEALED_PREFIX + "!!!", "reply_token_key")


def test_a_short_key_is_refused_with_how_to_make_one() -> None:
    with pytest.raises(ValueError, match=r"at least 32 characters.*token_urlsafe"):
        box_from_text("too short")


def test_the_fingerprint_names_the_key_without_revealing_it() -> None:
    assert box_from_text(KEY).fingerprint == box_from_text(KEY).fingerprint
    assert box_from_text(KEY).fingerprint != box_from_text(KEY + "!").fingerprint
    assert KEY not in box_from_text(KEY).fingerprint


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    first = box_from_key_file(tmp_path / "data")
    path = tmp_path / "data" / "secret.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = box_from_key_file(tmp_path / "data")
    assert again.fingerprint == first.fingerprint
    assert SecretBox(b"x" * 32).fingerprint != first.fingerprint

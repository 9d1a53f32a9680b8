"""The address parser fuzzed where tests/unit/test_address.py is thin: escapes and size.

Its properties there draw mostly well-formed text; here the email form's `=XX`
escapes (broken hex, UTF-8 cut in half, surrogates, NUL), `+` and dots in every
place, angle brackets and display names, and inputs of many kilobytes. Whatever
comes, the one outcome besides an Address is InvalidAddress, and an accepted
address round-trips.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.address import (
    is_valid_alias,
    is_valid_name,
    normalize_alias,
    normalize_name,
    parse_address,
    parse_email,
    parse_native,
)
from core.errors import InvalidAddress
from tests.support.fuzzing import examples, fuzz_settings

pytestmark = pytest.mark.fuzz

D = "agentmail.localhost"
_PIECES = ["=", "=C3", "=A9", "=FF", "=ED=A0=80", "=00", "=2E", "=2B", "=3D", "=g1", "=e9",
           "+", "++", ".", "..", "a", "Z", "0", "-", "_", "/", "@", "<", ">", " ", "\"", "用",
           "\x00", "\t", "\ud800", "new", "NEW", D, "@" + D, "=" * 3]  # fmt: skip
_local = st.lists(st.sampled_from(_PIECES) | st.text(max_size=3), max_size=30).map("".join)
texts = st.one_of(
    _local.map(lambda local: local + "@" + D),
    _local.map(lambda local: f"Name <{local}@{D}>"),
    _local,
    st.tuples(st.sampled_from(_PIECES), st.integers(100, 5000)).map(lambda t: t[0] * t[1]),
)


def _only_invalid_address(text: str) -> None:
    for parse in (parse_native, lambda t: parse_email(t, D), lambda t: parse_address(t, D)):
        try:
            address = parse(text)
        except InvalidAddress:
            continue
        assert parse_native(address.native()) == address
        assert parse_email(address.email(D), D) == address


@fuzz_settings(examples(400))
@given(texts)
def test_escapes_and_size_only_raise_invalid_address(text: str) -> None:
    _only_invalid_address(text)


@fuzz_settings(examples(200))
@given(texts)
def test_names_and_aliases_normalize_or_refuse(text: str) -> None:
    for valid, normalize in ((is_valid_name, normalize_name), (is_valid_alias, normalize_alias)):
        try:
            normalized = normalize(text)
        except InvalidAddress:
            continue
        assert valid(normalized), (text, normalized)

"""Reply tokens (core/secrets/reply_token.py): made and checked with the key, bound to
the request, the human and the address; the parser strict, bounded and total."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from core.secrets.reply_token import (
    TOKEN_LENGTH,
    new_token_id,
    parse_reply_address,
    parse_token,
    token_for,
    token_matches,
)

KEY = b"k" * 32
DOMAIN = "agentmail.test"
B32 = "abcdefghijklmnopqrstuvwxyz234567"


def _token(**changed: str) -> str:
    fields = {"token_id": new_token_id(), "mail_id": "m1", "owner": "alice"}
    fields.update(changed)
    return token_for(KEY, fields["token_id"], fields["mail_id"], fields["owner"], "a@x.test")


def test_a_token_verifies_for_what_it_was_issued_to_only() -> None:
    token_id = new_token_id()
    text = token_for(KEY, token_id, "m1", "alice", "a@x.test")
    assert len(text) == TOKEN_LENGTH and set(text) <= set(B32)
    parsed = parse_reply_address(f"<reply+{text}@{DOMAIN}>", DOMAIN)
    assert parsed is not None and parsed.id == token_id
    assert token_matches(KEY, parsed, "m1", "alice", "a@x.test")
    assert token_matches(KEY, parsed, "m1", "alice", "a@X.TEST")  # the domain's case
    assert not token_matches(KEY, parsed, "m2", "alice", "a@x.test")
    assert not token_matches(KEY, parsed, "m1", "bob", "a@x.test")
    assert not token_matches(KEY, parsed, "m1", "alice", "b@x.test")
    assert not token_matches(b"o" * 32, parsed, "m1", "alice", "a@x.test")
    upper = parse_reply_address(f"REPLY+{text.upper()}@{DOMAIN.upper()}", DOMAIN)
    assert upper == parsed  # a relay that folds case changes nothing


def test_addresses_that_are_not_reply_addresses() -> None:
    text = _token()
    for address in (
        f"reply+{text}@other.test",
        f"reply-{text}@{DOMAIN}",
        f"reply+{text}x@{DOMAIN}",
        f"reply+{text[:-1]}@{DOMAIN}",
        f"reply+{text[:-1]}1@{DOMAIN}",  # 1 is not base32
        f"reply+{text[:-1]}=@{DOMAIN}",
        f"reply+{text}",
        "",
        "@",
        f"reply+{text}@{DOMAIN}" + " " * 300,
    ):
        assert parse_reply_address(address, DOMAIN) is None, address


@given(st.text(max_size=400))
def test_the_parser_is_total_on_any_text(text: str) -> None:
    parsed = parse_token(text)
    if parsed is not None:
        assert len(text) == TOKEN_LENGTH and set(parsed.text) <= set(B32)
    parse_reply_address(text, DOMAIN)


@given(st.text(alphabet=B32 + B32.upper(), min_size=TOKEN_LENGTH, max_size=TOKEN_LENGTH))
def test_every_well_formed_token_parses_and_a_made_up_one_does_not_verify(text: str) -> None:
    parsed = parse_reply_address(f"reply+{text}@{DOMAIN}", DOMAIN)
    assert parsed is not None and parsed.text == text.lower()
    assert not token_matches(KEY, parsed, "m1", "alice", "a@x.test") or parsed.text == _token(
        token_id=parsed.id
    )


@given(st.binary(max_size=600))
def test_fuzz_any_bytes_as_an_address(data: bytes) -> None:
    text = data.decode("latin-1")
    assert parse_reply_address(text, DOMAIN) is None or text.strip().strip("<>").lower().startswith(
        "reply+"
    )


@given(
    st.integers(min_value=0, max_value=TOKEN_LENGTH - 1), st.sampled_from(string.ascii_lowercase)
)
def test_one_changed_character_fails_the_mac(position: int, char: str) -> None:
    token_id = "a" * 16
    text = token_for(KEY, token_id, "m1", "alice", "a@x.test")
    changed = text[:position] + char + text[position + 1 :]
    parsed = parse_token(changed)
    assert parsed is not None
    assert token_matches(KEY, parsed, "m1", "alice", "a@x.test") == (changed == text)

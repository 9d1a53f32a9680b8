"""The parser's outside branch (core/address/mailto.py): `mailto:` mailboxes checked as RFC 5321
mailboxes, canonical, round-tripping through the native form; a bare `x@example.com`
never outside; every malformed or over-long input refused with a reason."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.address import RESERVED_NAMES, Address
from core.address.mailto import (
    MAX_MAILBOX_LENGTH,
    External,
    is_mailto,
    parse_mailbox,
    parse_mailto,
    parse_recipient,
)
from core.errors import InvalidAddress

D = "agentmail.localhost"
ATEXT = string.ascii_letters + string.digits + "!#$&'*+-/=^_`{|}~"
atoms = st.text(ATEXT, min_size=1, max_size=12)
locals_ = st.lists(atoms, min_size=1, max_size=4).map(".".join).filter(lambda s: len(s) <= 64)
labels = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?", fullmatch=True)
domains = st.lists(labels, min_size=2, max_size=4).map(".".join).filter(lambda d: d.lower() != D)


@given(locals_, domains)
def test_a_valid_mailbox_parses_and_round_trips(local: str, domain: str) -> None:
    parsed = parse_mailto(f"mailto:{local}@{domain}", D)
    assert parsed == External(f"{local}@{domain.lower()}")
    assert parse_recipient(parsed.native(), D) == parsed  # native → structured → native
    assert parse_recipient(f"  MAILTO:{local}@{domain} ", D) == parsed  # scheme in any case


@given(st.text(max_size=80))
def test_without_the_scheme_an_address_is_never_outside(text: str) -> None:
    try:
        parsed = parse_recipient(text, D)
    except InvalidAddress:
        return
    assert isinstance(parsed, Address) == (not is_mailto(text))


@given(locals_, domains, st.sampled_from(["\r", "\n", "\r\n", " ", "\t", "\x00"]))
def test_white_space_and_control_characters_are_refused(local: str, domain: str, bad: str) -> None:
    with pytest.raises(InvalidAddress):
        parse_mailbox(f"{local}{bad}@{domain}")
    with pytest.raises(InvalidAddress):
        parse_mailbox(f"{local}@{domain}{bad}")


@given(st.text(min_size=1, max_size=20).filter(lambda s: not s.isascii()), domains)
def test_non_ascii_is_refused_with_the_a_label_hint(text: str, domain: str) -> None:
    with pytest.raises(InvalidAddress, match="ASCII"):
        parse_mailbox(f"a{text}@{domain}")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("bob", "no '@'"),
        ("@example.com", "empty local part"),
        ("a" * 65 + "@example.com", "64 octets"),
        ("bob@" + ".".join(["a" * 63] * 5), "1-255 octets"),
        ("a" * 64 + "@" + ".".join(["b" * 62] * 3) + ".cc", f"{MAX_MAILBOX_LENGTH} octets"),
        ('"bob"@example.com', "quoted"),
        ("bob@[192.0.2.1]", "address literals"),
        ("bob@localhost", "fully qualified"),
        ("bob@-x.example.com", "label"),
        ("bob@x_y.example.com", "label"),
        (".bob@example.com", "dot"),
        ("bo..b@example.com", "dot"),
        ("bob?subject=x@example.com", "'?'"),
        ("bob%40x@example.com", "'%'"),
        ("bob@bücher.example", "xn--"),
    ],
)
def test_malformed_mailboxes_are_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(InvalidAddress, match=why.replace("?", r"\?")):
        parse_mailbox(text)


def test_the_gateways_own_domain_is_not_outside() -> None:
    with pytest.raises(InvalidAddress, match="without mailto"):
        parse_mailto(f"mailto:pi@{D.upper()}", D)


def test_an_idn_domain_in_its_a_label_form_is_accepted() -> None:
    assert parse_mailbox("Bob@XN--BCHER-KVA.example") == "Bob@xn--bcher-kva.example"


def test_reply_is_reserved() -> None:
    assert "reply" in RESERVED_NAMES and "postmaster" in RESERVED_NAMES

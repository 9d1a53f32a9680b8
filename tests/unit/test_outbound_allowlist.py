"""The outbound allowlist's entries and matching (core/outbound/allowlist.py): a table of
cases, and properties over generated domains (a canonical entry parses to itself; a
domain entry never reaches a subdomain, a wildcard never the apex)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidAddress
from core.outbound.allowlist import allows, parse_entry

D = "agentmail.localhost"
LABEL = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
DOMAIN = st.lists(LABEL, min_size=2, max_size=4).map(".".join)


@pytest.mark.parametrize(
    ("entries", "mailbox", "allowed"),
    [
        (["bob@example.com"], "bob@example.com", True),
        (["bob@example.com"], "Bob@example.com", False),  # local parts compare exactly
        (["bob@example.com"], "bob@mail.example.com", False),
        (["example.com"], "anyone@example.com", True),
        (["example.com"], "x@mail.example.com", False),
        (["*.example.com"], "x@mail.example.com", True),
        (["*.example.com"], "x@a.b.example.com", True),
        (["*.example.com"], "x@example.com", False),
        (["*.example.com"], "x@notexample.com", False),
        ([], "x@example.com", False),
    ],
)
def test_matching(entries: list[str], mailbox: str, allowed: bool) -> None:
    assert allows([parse_entry(e, D) for e in entries], mailbox) is allowed


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("Example.COM", "example.com"),
        ("  mailto:Bob@Example.com ", "Bob@example.com"),
        ("*.Example.org", "*.example.org"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ],
)
def test_canonical_forms(text: str, canonical: str) -> None:
    assert parse_entry(text, D) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "bücher.example",
        "*example.com",
        "a.*.example.com",
        "example",
        D,
        f"x@{D}",
        "[192.0.2.1]",
        "a@[192.0.2.1]",
        '"a b"@example.com',
        "",
        "*.",
    ],
)
def test_refused(text: str) -> None:
    with pytest.raises(InvalidAddress):
        parse_entry(text, D)


@given(DOMAIN, LABEL)
def test_domains_and_wildcards_keep_to_their_side(domain: str, sub: str) -> None:
    assert parse_entry(domain, D) == domain == parse_entry(domain.upper(), D)
    apex, below = f"x@{domain}", f"x@{sub}.{domain}"
    assert allows([domain], apex) and not allows([domain], below)
    assert allows(["*." + domain], below) and not allows(["*." + domain], apex)

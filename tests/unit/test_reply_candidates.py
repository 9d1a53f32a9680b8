"""Where a collected message's reply address is read from (core/replies/collected.py):
the delivering server's headers first, then To and Cc; a bounded list for any header
block, hostile ones included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.replies.collected import MAX_CANDIDATES, recipient_candidates
from tests.support.mime_fuzz import pathological


def test_the_delivering_servers_headers_come_first() -> None:
    raw = (
        b"To: Alice <alice@out.test>, reply+bbbb@gw.test\r\n"
        b"Cc: carol@out.test\r\n"
        b"Delivered-To: reply+aaaa@gw.test\r\n"
        b"X-Original-To: reply+aaaa@gw.test\r\n"
        b"Subject: Re: deploy\r\n\r\n1\r\n"
    )
    assert recipient_candidates(raw) == [
        "reply+aaaa@gw.test",
        "alice@out.test",
        "reply+bbbb@gw.test",
        "carol@out.test",
    ]


def test_a_header_of_many_addresses_gives_a_bounded_list() -> None:
    many = ", ".join(f"a{n}@out.test" for n in range(5000)).encode()
    assert len(recipient_candidates(b"To: " + many + b"\r\n\r\nx\r\n")) == MAX_CANDIDATES


def test_no_headers_no_candidates() -> None:
    assert recipient_candidates(b"") == []
    assert recipient_candidates(b"\r\n\r\nTo: a@b.test\r\n") == []  # that is the body


@given(st.one_of(pathological, st.binary(max_size=2000)))
def test_any_bytes_give_a_bounded_list_of_addresses(raw: bytes) -> None:
    found = recipient_candidates(raw)
    assert len(found) <= MAX_CANDIDATES
    assert all("@" in address for address in found)

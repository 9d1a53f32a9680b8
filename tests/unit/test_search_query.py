"""The search box parser: filters and terms, and never an exception but InvalidRequest."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidRequest
from core.mail.search_query import MAX_QUERY_CHARS, MAX_TERMS, SearchQuery, parse_query

_PIECES = st.sampled_from(
    ['"', ":", " ", "from:", "to:", "alias:", "is:", "has:", "type:", "unread", "登录", "\\", "%"]
)
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=30).map("".join)


@given(_TEXT)
def test_any_text_is_a_query_or_an_invalid_request(text: str) -> None:
    try:
        query = parse_query(text)
    except InvalidRequest:
        return
    assert len(query.terms) <= MAX_TERMS
    assert all(term and term == " ".join(term.split()) for term in query.terms)
    assert all(value == value.lower() for value in query.senders + query.recipients)


@given(st.text(min_size=MAX_QUERY_CHARS + 1, max_size=MAX_QUERY_CHARS + 20))
def test_too_long_is_refused(text: str) -> None:
    with pytest.raises(InvalidRequest):
        parse_query(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", SearchQuery()),
        ("登录 /srv/app", SearchQuery(terms=["登录", "/srv/app"])),
        ('"deploy  failed" now', SearchQuery(terms=["deploy failed", "now"])),
        ('"unterminated phrase', SearchQuery(terms=["unterminated phrase"])),
        ("From:Bob to:ada@x", SearchQuery(senders=["bob"], recipients=["ada@x"])),
        ('alias:"my task" x', SearchQuery(aliases=["my task"], terms=["x"])),
        ("is:unread has:attachment", SearchQuery(unread=True, has_attachment=True)),
        ("is:read type:permission", SearchQuery(unread=False, mail_types=["permission_request"])),
        ("type:question", SearchQuery(mail_types=["question"])),
        ("a:b http://x", SearchQuery(terms=["a:b", "http://x"])),  # not filters: words
        ("from:", SearchQuery()),
    ],
)
def test_filters_and_terms(text: str, expected: SearchQuery) -> None:
    assert parse_query(text) == expected


@pytest.mark.parametrize("text", ["is:maybe", "has:cat", "type:spam", " ".join("w" * 11)])
def test_refused(text: str) -> None:
    with pytest.raises(InvalidRequest):
        parse_query(text)

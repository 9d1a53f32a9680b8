"""A search box's text as filters and terms: `from:bob is:unread "deploy failed" 登录`.

The parser never raises anything but InvalidRequest, whatever it is given
(tests/unit/test_search_query.py checks that with hypothesis): the box is
user input, so a stray quote or an unknown `key:` is read as words; only a
known filter with a value it cannot have, or a broken limit, is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.errors import FieldProblem, InvalidRequest

MAX_QUERY_CHARS = 500
MAX_TERMS = 10
MAX_VALUE_CHARS = 200
# `type:` words as people write them, to the stored mail_type.
MAIL_TYPES = {
    "permission": "permission_request",
    "permission_request": "permission_request",
    "question": "question",
    "normal": "normal",
    "summary": "final_summary",
    "final_summary": "final_summary",
    "failed": "turn_failed",
    "turn_failed": "turn_failed",
    "forward": "forward",
}
_IS = {"unread", "read"}
_HAS = {"attachment"}
# A quoted phrase (its closing quote optional), or a run of non-space characters.
_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
_FILTER = re.compile(r"(from|to|alias|is|has|type):(.*)", re.IGNORECASE | re.DOTALL)


@dataclass
class SearchQuery:
    terms: list[str] = field(default_factory=list)
    senders: list[str] = field(default_factory=list)
    recipients: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    mail_types: list[str] = field(default_factory=list)
    unread: bool | None = None
    has_attachment: bool = False

    @property
    def empty(self) -> bool:
        return self == SearchQuery()


def parse_query(text: str) -> SearchQuery:
    """Filters (`key:value`, a value may be quoted) and terms (words or quoted phrases)."""
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidRequest(
            f"a search is at most {MAX_QUERY_CHARS} characters",
            FieldProblem("q", "too_long", MAX_QUERY_CHARS),
        )
    query = SearchQuery()
    tokens = _tokens(text)
    for phrase, word in tokens:
        matched = _FILTER.fullmatch(word) if word else None
        if matched is None:
            _add_term(query, phrase if phrase is not None else word)
            continue
        key, value = matched.group(1).lower(), matched.group(2)
        _add_filter(query, key, value.strip())
    return query


def _tokens(text: str) -> list[tuple[str | None, str]]:
    """(phrase, word) pairs; `key:"quoted value"` is one word with its quotes removed."""
    out: list[tuple[str | None, str]] = []
    position = 0
    while True:
        found = _TOKEN.search(text, position)
        if found is None:
            return out
        position = found.end()
        if found.group(2) is not None:
            word = found.group(2)
            # key:"value with spaces" — take the quoted rest as the value.
            if _FILTER.fullmatch(word) and '"' in word:
                key, _, rest = word.partition(":")
                if rest.startswith('"'):
                    end = text.find('"', found.start() + len(key) + 2)
                    stop = len(text) if end < 0 else end
                    value = text[found.start() + len(key) + 2 : stop]
                    position = stop + 1 if end >= 0 else len(text)
                    word = f"{key}:{value}"
            out.append((None, word))
        else:
            out.append((found.group(1), ""))


def _add_term(query: SearchQuery, term: str) -> None:
    term = " ".join(term.split())
    if not term:
        return
    if len(query.terms) >= MAX_TERMS:
        raise InvalidRequest(f"a search has at most {MAX_TERMS} words or phrases")
    query.terms.append(term[:MAX_VALUE_CHARS])


def _add_filter(query: SearchQuery, key: str, value: str) -> None:
    value = value[:MAX_VALUE_CHARS]
    lowered = value.lower()
    if not value:
        return
    if key == "from":
        query.senders.append(lowered)
    elif key == "to":
        query.recipients.append(lowered)
    elif key == "alias":
        query.aliases.append(lowered)
    elif key == "is" and lowered in _IS:
        query.unread = lowered == "unread"
    elif key == "has" and lowered in _HAS:
        query.has_attachment = True
    elif key == "type" and lowered in MAIL_TYPES:
        query.mail_types.append(MAIL_TYPES[lowered])
    else:
        raise InvalidRequest(
            f"unknown search filter {key}:{value}: use from:, to:, alias:, is:unread, is:read, "
            "has:attachment, type:permission|question|summary|forward|normal",
            FieldProblem("q", "format"),
        )

"""Address lists read as Dovecot 2.3 reads them (core/mime/addresses.py) and kept for
ENVELOPE (core/mime/envelope_addresses.py): the table is Dovecot's own ENVELOPE of each
value (its names before they are written for humans); drawn values never raise and
keep every group closed; long hostile ones are read within the margin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.mime.addresses import Address, address_list
from core.mime.envelope_addresses import address_items, humane
from tests.support.margin import within_margin

Row = tuple[str | None, str | None, str | None, str | None]
START, END = "start", "end"


def _rows(value: str) -> list[Row]:
    return [(a.name, a.route, a.mailbox, a.domain) for a in address_list(value)]


@pytest.mark.parametrize(
    ("value", "rows"),
    [
        ("user@domain (Real Name)", [("Real Name", None, "user", "domain")]),  # RFC 822's way
        ("a@b (first) (second)", [("second", None, "a", "b")]),  # the last comment
        ("a@b (first) ()", [(None, None, "a", "b")]),
        ("a@b (nested (inner) x)", [("nested (inner) x", None, "a", "b")]),
        ("user (c1)@ (c2) domain.org", [("c2", None, "user", "domain.org")]),
        ("<user (c1)@ (c2) domain.org>", [(None, None, "user", "domain.org")]),
        ("Name (c) <a@b>", [("Name", None, "a", "b")]),  # a phrase: its comments are not it
        ('"Real, Name" <a@b>', [("Real, Name", None, "a", "b")]),
        ("=?utf-8?q?J=C3=BCrgen?= <j@x>", [("=?utf-8?q?J=C3=BCrgen?=", None, "j", "x")]),
        ("<@route:user@domain>", [(None, "@route", "user", "domain")]),  # RFC 5322 §4.4
        ("<@a.example, @b.example:u@d>", [(None, "@a.example,@b.example", "u", "d")]),
        ("<@route user@domain>", [(None, "INVALID_ROUTE", "user", "domain")]),
        ("Name <user@domain", [("Name", None, "user", "SYNTAX_ERROR")]),
        (
            "group: g1@d1.org, g2@d2.org;, group2: g3@d3.org;",
            [
                (None, None, "group", None),
                (None, None, "g1", "d1.org"),
                (None, None, "g2", "d2.org"),
                (None, None, None, None),
                (None, None, "group2", None),
                (None, None, "g3", "d3.org"),
                (None, None, None, None),
            ],
        ),
        (
            "group:;, group2: (foo) ;",
            [
                (None, None, "group", None),
                (None, None, None, None),
                (None, None, "group2", None),
                (None, None, None, None),
            ],
        ),
        ("group: a@b", [(None, None, "group", None), (None, None, "a", "b"), (None,) * 4]),
        ("foo", [(None, None, "foo", "MISSING_DOMAIN")]),  # a word: a mailbox
        ("Foo Bar", [("Foo Bar", None, "MISSING_MAILBOX", "MISSING_DOMAIN")]),  # words: a name
        ('"Foo Bar"', [("Foo Bar", None, "MISSING_MAILBOX", "MISSING_DOMAIN")]),
        ("john. doe@example.com", [("john.  doe", None, "MISSING_MAILBOX", "MISSING_DOMAIN")]),
        ("<>", [(None, None, "MISSING_MAILBOX", "MISSING_DOMAIN")]),
        ("@d", [(None, None, "MISSING_MAILBOX", "d")]),
        ("a@[1.2.3.4]", [(None, None, "a", "[1.2.3.4]")]),
        (
            "a@b,,c@d",
            [
                (None, None, "a", "b"),
                (None, None, "MISSING_MAILBOX", "MISSING_DOMAIN"),
                (None, None, "c", "d"),
            ],
        ),
        ("a@b, (", [(None, None, "a", "b"), (None, None, "MISSING_MAILBOX", "MISSING_DOMAIN")]),
        # A comment never closed: what Dovecot had read of it by its last quoted pair.
        ("a@b (unclosed \\) comment", [("unclosed ", None, "a", "MISSING_DOMAIN")]),
        ("", []),
        ("  (only a comment) ", []),
    ],
)
def test_address_list_as_dovecot_reads_it(value: str, rows: list[Row]) -> None:
    assert _rows(value) == rows


def test_kept_items_give_names_as_written_and_decoded() -> None:
    """7-bit: the name as written, encoded-words too (Dovecot); UTF-8: decoded; both for
    humans. A raw UTF-8 name is encoded again for a 7-bit session (RFC 6855 §3)."""
    items = address_items(
        [
            'user@domain (Real  Name), "=?utf-8?q?J=C3=BCrgen?=" <j@x>',
            "Zoë <z@x>, team: <@r:m@x>;",
        ]
    )
    assert items == [
        ["a", "Real Name", None, None, "user", "domain"],
        ["a", "Jürgen", "=?utf-8?q?J=C3=BCrgen?=", None, "j", "x"],
        ["a", "Zoë", "=?utf-8?q?Zo=C3=AB?=", None, "z", "x"],
        ["g", "team", None],
        ["a", None, None, "@r", "m", "x"],
        ["e"],
    ]
    assert address_items(["", "  "]) is None  # no address: NIL (Sender is then From)
    assert humane("\t a \r\n  b  ") == "a b"


_pieces = st.sampled_from(
    ["a", "b.c", ".", "@", ",", ";", ":", "<", ">", " ", "\t", "\r\n ", "(", ")", '"', "\\",
     "[", "]", "=?utf-8?q?x?=", "é", "@r:", "g:", "(c)"]
)  # fmt: skip


@given(st.lists(_pieces, max_size=40).map("".join))
def test_any_value_is_read_and_every_group_closes(value: str) -> None:
    items = address_list(value)
    depth = 0
    for item in items:
        if item.domain is None:
            depth += 1 if item.mailbox is not None else -1
            assert depth in (0, 1)
        else:
            assert item.mailbox is not None and item.domain  # filled, as Dovecot fills it
    assert depth == 0
    kept = address_items([value])
    assert kept is None or len(kept) == len(items)


HOSTILE = [
    "(" * 100_000,
    "a@b " + "(" * 50_000 + ")" * 50_000,
    "a@b (" + "x" * 200_000 + ")",
    "a@b (" + "\\)" * 100_000,
    '"' + "\\" * 100_000,
    "g:;," * 25_000,
    "g: a@b, " * 20_000,
    "a@b," * 50_000,
    "<" * 100_000,
    "<@" + "r,@" * 50_000 + ":u@d>",
    "a " * 100_000 + "<u@d>",
    "a." * 50_000,
]


@pytest.mark.parametrize("value", HOSTILE, ids=lambda s: repr(s[:8]))
def test_hostile_values_are_read_within_the_margin(value: str) -> None:
    items: list[Address] = within_margin(lambda: address_list(value))
    assert isinstance(items, list)
    within_margin(lambda: address_items([value]))

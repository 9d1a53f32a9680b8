"""The header values SORT and THREAD read (imap_view/sort_headers.py), as Dovecot 2.3 reads
them: the first address's mailbox (RFC 5256 §3 FROM, TO, CC), the sent date (§2.2) and
the message identifiers THREAD=REFERENCES links by; drawn values never raise and long
hostile ones are read within the margin."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from imap_view.sort_display import first_display
from imap_view.sort_headers import MISSING_MAILBOX, first_mailbox, message_ids, sent_time
from tests.support.margin import within_margin


@pytest.mark.parametrize(
    ("value", "mailbox"),
    [
        ("alice@example.com", "alice"),
        ("Alice <Alice.B@example.com>", "Alice.B"),
        ('"Alice, B." <ab@example.com>, carol@example.com', "ab"),
        ("<ab@example.com>", "ab"),
        ('"john doe"@example.com', "john doe"),  # addr-mailbox: the local part unquoted
        ("john .doe @ example.com", "john.doe"),  # RFC 822 white space before a dot
        ("john. doe@example.com", MISSING_MAILBOX),  # … and after it, which Dovecot refuses
        ("(comment) bob@example.com (more)", "bob"),
        ("undisclosed-recipients:;", "undisclosed-recipients"),  # a group: its name
        ("Team: a@example.com, b@example.com;", "Team"),
        ("=?utf-8?q?Caf=C3=A9?= <cafe@example.com>", "cafe"),
        ("<@route.example:x@example.com>", "x"),
        ("a..b.@example.com", "a..b."),  # dots as written (obs-local-part)
        ("foo", "foo"),  # a bare word is a mailbox without a domain
        ("Foo Bar", MISSING_MAILBOX),  # a display name and no address
        ("<>", MISSING_MAILBOX),
        ("", ""),
        ("   ", ""),
    ],
)
def test_first_mailbox(value: str, mailbox: str) -> None:
    assert first_mailbox(value) == mailbox


def _at(*fields: int) -> int:
    return int(datetime(*fields, tzinfo=UTC).timestamp())  # type: ignore[misc]


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("Tue, 01 Dec 2026 10:01:02 +0000", _at(2026, 12, 1, 10, 1, 2)),
        ("1 Dec 2026 10:01:02 +0130", _at(2026, 12, 1, 8, 31, 2)),
        ("Tue, 1 Dec 2026 10:01 -0500", _at(2026, 12, 1, 15, 1)),
        ("01 Dec 26 10:01:02 EST", _at(2026, 12, 1, 15, 1, 2)),  # -0500, two-digit year
        ("01 Dec 99 10:01:02 PDT", _at(1999, 12, 1, 17, 1, 2)),  # 99 is 1999, PDT -0700
        ("01 december 2026 10.01.02 UT", _at(2026, 12, 1, 10, 1, 2)),
        ("01 Dec 2026 10:01:02 XYZ", _at(2026, 12, 1, 10, 1, 2)),  # unknown zone: UTC
        ("01 Dec 2026 10:01:02", _at(2026, 12, 1, 10, 1, 2)),  # none: UTC
        ("01 Dec 2026 23:59:60 +0000", _at(2026, 12, 1, 23, 59, 59)),  # leap second
        ("Tue (day) , 01 Dec 2026 10:01:02 (c) +0000", _at(2026, 12, 1, 10, 1, 2)),
        # The date, as RFC 5256 §2.2 asks, where Dovecot keeps 32 unsigned bits and takes
        # 0 and -1 for "no date" (docs/imap.md, "SORT and THREAD").
        ("1 Jan 1960 00:00:00 +0000", _at(1960, 1, 1)),
        ("1 Jan 70 00:00:00 +0000", 0),
        ("1 Feb 2200 10:00:00 +0000", _at(2200, 2, 1, 10)),
        ("Tue 01 Dec 2026 10:01:02 +0000", None),  # a day name needs its comma
        ("31 Feb 2026 10:00:00 +0000", None),
        ("01 Dec 2026 24:00:00 +0000", None),
        ("01 Dec 1899 10:00:00 +0000", None),
        ("01 Dec 2026", None),
        ("not a date", None),
        ("", None),
    ],
)
def test_sent_time(value: str, seconds: int | None) -> None:
    assert sent_time(value) == seconds


@pytest.mark.parametrize(
    ("value", "ids"),
    [
        ("<a@b>", ["a@b"]),
        ("<a@b> <c@d>\r\n <e@f>", ["a@b", "c@d", "e@f"]),
        ("<a@b><c@d>", ["a@b", "c@d"]),
        ("< a@b >", ["a@b"]),  # white space inside dropped
        ("<no-at> <x@y>", ["x@y"]),  # one without @ is skipped
        ('<"a b"@c>', ["a b@c"]),
        ("<a(comment)@b>", ["a@b"]),
        ("junk", []),
        ("<unclosed@x", []),
        ("", []),
    ],
)
def test_message_ids(value: str, ids: list[str]) -> None:
    assert message_ids(value) == ids


_header_text = st.text(st.sampled_from(list('abc@<>"(),:;.\\ \t\r\nÉ[]=?+-0123')), max_size=60)


@given(_header_text)
def test_any_value_is_read_without_an_error(value: str) -> None:
    assert isinstance(first_mailbox(value), str)
    assert sent_time(value) is None or isinstance(sent_time(value), int)
    assert all("@" in found for found in message_ids(value))


HOSTILE = [
    "(" * 100_000,
    "(" * 50_000 + ")" * 50_000 + "a@b",
    '"' + "\\" * 100_000,
    "a." * 50_000 + "@b",
    "<" * 100_000,
    '<"' * 50_000,
    "x" * 100_000 + "@" * 100_000,
    "a:" * 50_000,
]


@pytest.mark.parametrize("value", HOSTILE, ids=lambda s: repr(s[:8]))
def test_hostile_values_are_read_within_the_margin(value: str) -> None:
    within_margin(lambda: (first_mailbox(value), sent_time(value), message_ids(value)))


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("foo bar <a@b.c>", "foo bar"),  # RFC 5957 §2: the display name
        ("<only@x.y>", "only@x.y"),  # none: addr-mailbox@addr-host
        ('"" <empty@x.y>', "empty@x.y"),
        ('"Quoted, Name" <q@x.y>', "Quoted, Name"),
        ("bob@example.org (Bob)", "Bob"),  # Dovecot: a comment after an addr-spec names it
        ("(lead) carol@example.org", "carol@example.org"),  # … one before it does not
        ("x@y (c1) (c2)", "c2"),  # the last
        ("Two Words", "Two Words"),  # words that are no address: a name
        ("john. doe@example.com", "john.  doe"),  # what Dovecot read of it, and the rest
        ('"quoted"', "quoted"),
        ("d", "d@"),  # a bare word: a mailbox with an empty domain
        ("broken <a@b", "broken"),
        ("zed@[1.2.3.4]", "zed@[1.2.3.4]"),
        ("<@route.x:r@x.y>", "r@x.y"),
        ("undisclosed-recipients:;", "undisclosed-recipients"),  # a group: its name
        ("", ""),
    ],
)
def test_first_display(value: str, key: str) -> None:
    """SORT=DISPLAY's key as Dovecot reads it (checked against Dovecot 2.3 by the
    differential tests: tests/integration/test_imap_dovecot_diff.py)."""
    assert first_display(value) == key

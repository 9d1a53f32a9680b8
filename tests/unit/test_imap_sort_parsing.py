"""SORT, THREAD and SEARCH RETURN as the gateway's command table parses them
(imap_view/sort_parsing.py, imap_view/search_charset.py): RFC 5256 §4's, RFC 4731's and
RFC 5267's (ESORT) grammar, a program read back as written, every drawn line a command
or a BAD (never an exception), and long hostile lines parsed within the margin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pymap.parsing import Params
from pymap.parsing.command import Command
from pymap.parsing.commands import InvalidCommand

from imap_view.condstore_parsing import MAX_SEARCH_KEYS
from imap_view.config import GatewayImapConfig
from imap_view.esearch import ordered_set
from imap_view.search_charset import RETURNS
from imap_view.sort_order import SORT_KEYS, Criterion
from imap_view.sort_parsing import (
    MAX_CRITERIA,
    SortCommand,
    ThreadCommand,
    UidSortCommand,
    UidThreadCommand,
)
from tests.support.margin import within_margin

COMMANDS = GatewayImapConfig(domain="test", allow_plaintext_auth=True).commands


def parse(line: bytes) -> Command:
    command, _ = COMMANDS.parse(memoryview(line + b"\r\n"), Params())
    return command


def test_sort_reads_its_program_charset_and_keys() -> None:
    command = parse(b"a1 SORT (REVERSE date subject) UTF-8 SUBJECT plan UNSEEN")
    assert isinstance(command, SortCommand) and not command.uid
    assert command.program == (Criterion(b"DATE", True), Criterion(b"SUBJECT"))
    assert command.charset == "UTF-8" and len(command.keys) == 2
    uid = parse(b'a2 UID SORT (ARRIVAL) "us-ascii" ALL')
    assert isinstance(uid, UidSortCommand) and uid.uid
    assert uid.program == (Criterion(b"ARRIVAL"),) and uid.charset == "us-ascii"


def test_a_key_named_twice_is_used_once() -> None:
    command = parse(b"a SORT (SUBJECT REVERSE SUBJECT SIZE) UTF-8 ALL")
    assert isinstance(command, SortCommand)
    assert command.program == (Criterion(b"SUBJECT"), Criterion(b"SIZE"))


def test_thread_reads_its_algorithm() -> None:
    command = parse(b"a THREAD references UTF-8 ALL")
    assert isinstance(command, ThreadCommand) and command.algorithm == b"REFERENCES"
    uid = parse(b"a UID THREAD ORDEREDSUBJECT UTF-8 (SINCE 1-Jan-2026 NOT DELETED)")
    assert isinstance(uid, UidThreadCommand) and uid.algorithm == b"ORDEREDSUBJECT"


def test_an_unknown_charset_makes_a_refusal() -> None:
    """Refused when it runs (NO [BADCHARSET]), after the state checks, as SEARCH."""
    for line in (b"a SORT (DATE) BOGUS ALL", b"a THREAD REFERENCES x-nothing SUBJECT \xff"):
        command = parse(line)
        assert isinstance(command, SortCommand | ThreadCommand) and command.charset is None


@pytest.mark.parametrize(
    "line",
    [
        b"a SORT",
        b"a SORT () UTF-8 ALL",  # an empty program
        b"a SORT (REVERSE) UTF-8 ALL",  # REVERSE with no key after it
        b"a SORT (DATE REVERSE) UTF-8 ALL",
        b"a SORT (REVERSE REVERSE DATE) UTF-8 ALL",
        b"a SORT (SENDER) UTF-8 ALL",  # no such key
        b"a SORT (DATE) UTF-8",  # search-criteria = charset 1*(SP search-key)
        b"a SORT DATE UTF-8 ALL",
        b"a SORT (" + b"DATE " * (MAX_CRITERIA + 1) + b") UTF-8 ALL",
        b"a SORT (DATE) UTF-8 SUBJECT \xff",  # not UTF-8
        b"a THREAD UTF-8 ALL",
        b"a THREAD REFS UTF-8 ALL",  # no such algorithm here
        b"a THREAD REFERENCES",
        b"a SEARCH RETURN (SAVE) ALL",  # SEARCHRES is not offered
        b"a SEARCH RETURN ALL",
        b"a SEARCH RETURN (MIN",
        b"a SORT RETURN (SAVE) (DATE) UTF-8 ALL",  # ESORT's options are ESEARCH's four
        b"a SORT RETURN (PARTIAL 1:5) (DATE) UTF-8 ALL",  # CONTEXT=SORT is not offered
        b"a SORT RETURN ALL (DATE) UTF-8 ALL",
        b"a SORT RETURN (MIN) UTF-8 ALL",  # no criteria after the options
        b"a THREAD RETURN (ALL) REFERENCES UTF-8 ALL",
    ],
)
def test_malformed_lines_are_bad(line: bytes) -> None:
    assert isinstance(parse(line), InvalidCommand)


def test_search_return_options() -> None:
    command = parse(b"a SEARCH RETURN (max MIN count) UNSEEN")
    assert [o for o in RETURNS if command.options.has(o)] == [b"MIN", b"MAX", b"COUNT"]  # type: ignore[attr-defined]
    empty = parse(b"a UID SEARCH return () ALL")
    assert [o for o in RETURNS if empty.options.has(o)] == [b"ALL"]  # type: ignore[attr-defined]
    plain = parse(b"a SEARCH ALL")
    assert not plain.options  # type: ignore[attr-defined]


def test_sort_return_options() -> None:
    """RFC 5267 §3: ESORT's RETURN before the criteria; `()` is ALL; a plain SORT has none."""
    command = parse(b"a UID SORT return (count MIN min) (REVERSE DISPLAYFROM) UTF-8 ALL")
    assert isinstance(command, SortCommand) and command.returns == (b"COUNT", b"MIN")
    assert command.program == (Criterion(b"DISPLAYFROM", True),)
    empty = parse(b"a SORT RETURN () (DISPLAYTO) UTF-8 ALL")
    assert isinstance(empty, SortCommand) and empty.returns == (b"ALL",)
    plain = parse(b"a SORT (DATE) UTF-8 ALL")
    assert isinstance(plain, SortCommand) and plain.returns is None


@pytest.mark.parametrize(
    ("numbers", "written"),
    [([4, 2, 1, 3, 5], b"4,2,1,3,5"), ([1, 2, 3, 5, 6, 7], b"1:3,5:7"), ([7, 6, 5], b"7,6,5"),
     ([9], b"9"), ([3, 4, 1, 2], b"3:4,1:2")],
)  # fmt: skip
def test_esort_all_keeps_the_order(numbers: list[int], written: bytes) -> None:
    """RFC 5267 §3.1: ALL in the sort's order; ascending runs as ranges, as Dovecot."""
    assert ordered_set(numbers) == written


_criteria = st.lists(
    st.tuples(st.sampled_from(sorted(SORT_KEYS)), st.booleans()),
    min_size=1,
    max_size=7,
    unique_by=lambda criterion: criterion[0],
)


@given(_criteria, st.sampled_from([b"UTF-8", b"US-ASCII", b'"utf-8"']), st.booleans())
def test_a_program_is_read_as_written(
    criteria: list[tuple[bytes, bool]], charset: bytes, uid: bool
) -> None:
    words = b" ".join((b"REVERSE " if reverse else b"") + key for key, reverse in criteria)
    command = parse(
        b"a " + (b"UID " if uid else b"") + b"SORT (" + words + b") " + charset + b" ALL"
    )
    assert isinstance(command, SortCommand) and command.uid == uid
    assert command.program == tuple(Criterion(key, reverse) for key, reverse in criteria)


_WORDS = [
    b"(", b")", b"REVERSE", b"DATE", b"SUBJECT", b"ARRIVAL", b"SIZE", b"FROM", b"TO", b"CC",
    b"UTF-8", b"US-ASCII", b"BOGUS", b'"UTF-8"', b"ALL", b"OR", b"NOT", b"SUBJECT x",
    b"MODSEQ 5", b"REFERENCES", b"ORDEREDSUBJECT", b"RETURN", b"(MIN MAX)", b"()", b"1:*",
    b"{3+}\r\nabc", b'"', b"\xff", b"",
]  # fmt: skip
_lines = st.tuples(
    st.sampled_from([b"SORT", b"UID SORT", b"THREAD", b"UID THREAD", b"SEARCH", b"UID SEARCH"]),
    st.lists(st.sampled_from(_WORDS) | st.binary(max_size=8), max_size=8),
).map(lambda t: b"a " + b" ".join([t[0], *t[1]]).replace(b"\r\n", b" "))


@given(_lines)
def test_any_line_is_a_command_or_bad(line: bytes) -> None:
    within_margin(lambda: parse(line))  # returns, never raises


HOSTILE = [
    b"a SORT (" + b"REVERSE " * 30_000 + b"DATE) UTF-8 ALL",
    b"a SORT (DATE) UTF-8 " + b"(" * 30_000,
    b"a THREAD REFERENCES UTF-8 " + b"NOT " * 20_000 + b"ALL",
    b"a SORT (DATE) UTF-8 " + b"OR " * 20_000 + b"ALL ALL",
    b"a SEARCH RETURN (" + b"MIN " * 20_000 + b") ALL",
    b"a SORT (DATE) UTF-8 " + b"ALL " * 15_000,
]


@pytest.mark.parametrize("line", HOSTILE, ids=lambda line: repr(line[:24]))
def test_hostile_lines_are_parsed_within_the_margin(line: bytes) -> None:
    within_margin(lambda: parse(line))


@pytest.mark.parametrize(
    "command", [b"SORT (DATE) UTF-8", b"UID THREAD REFERENCES UTF-8", b"SEARCH", b"UID SEARCH"]
)
def test_a_thousand_search_keys_at_most_nested_ones_counted(command: bytes) -> None:
    """Each key costs pymap ~25 µs of the event loop to parse: one command gives at
    most `MAX_SEARCH_KEYS`, however they are nested."""
    most = b" ".join([b"a1", command, b"ALL " * (MAX_SEARCH_KEYS - 1) + b"UNSEEN"])
    assert not isinstance(parse(most), InvalidCommand)
    for over in (
        b"ALL " * MAX_SEARCH_KEYS + b"UNSEEN",
        b"(" + b"ALL " * MAX_SEARCH_KEYS + b"ALL)",
        b"NOT (" + b"SEEN " * (MAX_SEARCH_KEYS // 2) + b"OR (" + b"ALL " * 600 + b"ALL) ALL)",
    ):
        assert isinstance(parse(b" ".join([b"a1", command, over])), InvalidCommand), over[:20]

"""RFC 5256 §2.1's base subject, its text as i;unicode-casemap makes it, and RFC 2047 decoding
(imap_view/base_subject.py, imap_view/casemap.py): a table of the RFC's cases as Dovecot
answers them, properties over drawn subjects, and subjects built to make a careless
algorithm quadratic, each within the margin."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.mime.header_decoding import decode_words, header_text
from imap_view.base_subject import base_subject, packed
from imap_view.casemap import casemap
from tests.support.margin import within_margin

D = unicodedata.normalize("NFD", "É")  # É as i;unicode-casemap writes it: E and U+0301

CASES = [
    # (Subject as written, base subject, reply or forward)
    ("Hello", "HELLO", False),
    ("Re: Hello", "HELLO", True),
    ("RE: re: Fwd: FW: hello", "HELLO", True),
    ("Re[2]: hello", "HELLO", True),  # subj-refwd = ("re" / "fw" ["d"]) *WSP [subj-blob] ":"
    ("Re : hello", "HELLO", True),
    ("[list] Re: hello", "HELLO", True),  # subj-leader = (*subj-blob subj-refwd) / WSP
    ("[list] hello", "HELLO", False),  # (4): a leading blob goes when text is left
    ("[list]", "[LIST]", False),  # … and stays when nothing would be
    ("[a][b]", "[B]", False),
    ("Re: [list]", "[LIST]", True),
    ("hello (fwd)", "HELLO", True),  # (2): subj-trailer = "(fwd)" / WSP
    ("hello (fwd) (FWD)  ", "HELLO", True),
    ("[fwd: hello]", "HELLO", True),  # (6): subj-fwd-hdr … subj-fwd-trl
    ("[Fwd: Re: [x] hello (fwd)]", "HELLO", True),
    ("[fwd: hello", "[FWD: HELLO", False),  # no trailer: no subj-fwd
    ("Fwd:", "", True),
    ("Re:Re:hello", "HELLO", True),
    ("Rex: hello", "REX: HELLO", False),
    ("  hello \t  world  ", "HELLO WORLD", False),  # (1): white space made one space
    ("=?utf-8?q?Re=3A_caf=C3=A9?=", f"CAF{D}", True),  # (1): encoded-words decoded first
    ("=?utf-8?b?w6k=?= =?utf-8?b?w6k=?=", D + D, False),  # the space between two dropped
    ("=?iso-8859-1?q?Gr=FC=DFe?=", "GRU\u0308ßE", False),  # ß has no simple titlecase
    ("=?no-such?q?abc?=", "ABC", False),  # case-mapped too (Dovecot leaves it as it is)
    ("", "", False),
]


@pytest.mark.parametrize(("subject", "base", "reply"), CASES)
def test_base_subject(subject: str, base: str, reply: bool) -> None:
    assert base_subject(subject) == (base, reply)


@pytest.mark.parametrize(
    ("text", "mapped"),
    [
        ("Hello, world", "HELLO, WORLD"),
        ("é", "E\u0301"),  # titlecase É, decomposed
        ("ǆ", "ǅ"),  # titlecase of the digraph, itself titlecase: not decomposed
        ("ﬁ", "fi"),  # no titlecase; one level of compatibility decomposition
        ("ⓐ", "A"),  # titlecase Ⓐ, <circle> A
        ("한", "\u1112\u1161\u11ab"),  # Hangul syllable: decomposed by arithmetic
        ("ß", "ß"),
    ],
)
def test_casemap(text: str, mapped: str) -> None:
    assert casemap(text) == mapped


@pytest.mark.parametrize(
    ("value", "decoded"),
    [
        ("=?utf-8?q?a_b?=", "a b"),
        ("x =?utf-8?q?a?= y", "x a y"),
        ("  =?utf-8?q?a?=", "a"),  # white space before the first word dropped too
        ("=?utf-8?q?a?=\r\n =?utf-8?q?b?=", "ab"),
        ("=?utf-8?x?a?=", "=?utf-8?x?a?="),  # an unknown encoding is text
        ("=?utf-8?q?a", "=?utf-8?q?a"),  # never closed
        ("=?no-such-charset?q?caf=C3=A9?=", "café"),  # unknown charset: read as UTF-8
        ("=?utf-8?q?=ZZ?=", "=ZZ"),  # not hex: kept
        ("=?utf-8?b?w6k?=", "é"),  # missing padding
    ],
)
def test_decode_words(value: str, decoded: str) -> None:
    assert decode_words(value) == decoded


def test_invalid_utf8_is_one_replacement_character_per_run() -> None:
    assert header_text(b"a\xff\xfe\xfdb\xc3") == "a\ufffdb\ufffd"


_pieces = [*"reRfwdFWD:[]() \t_=?qQbB-ÉéxX", "=?utf-8?q?", "?=", "(fwd)", "[fwd:"]
_subjects = st.lists(st.sampled_from(_pieces), max_size=30).map("".join)


@given(_subjects)
def test_the_base_subject_is_a_piece_of_the_packed_subject(subject: str) -> None:
    """Every step only takes text off either end (RFC 5256 §2.1)."""
    base, _ = base_subject(subject)
    assert base in packed(subject)
    assert base == base.strip(" ") or base.startswith("[")


@given(_subjects)
def test_a_reply_leader_changes_only_the_reply_mark(subject: str) -> None:
    base, _ = base_subject(subject)
    assert base_subject("Re: " + subject) == (base, True)
    assert base_subject("Fwd: " + subject) == (base, True)


@given(_subjects)
def test_a_forward_trailer_changes_only_the_reply_mark(subject: str) -> None:
    base, _ = base_subject(subject)
    assert base_subject(subject + " (fwd)") == (base, True)


@given(st.text(st.characters(max_codepoint=127), max_size=40))
def test_ascii_case_does_not_matter(subject: str) -> None:
    assert base_subject(subject.lower()) == base_subject(subject.upper())


@given(st.text(max_size=60))
def test_any_text_has_a_base_subject(subject: str) -> None:
    base, reply = within_margin(lambda: base_subject(subject))
    assert isinstance(base, str) and isinstance(reply, bool)


# Subjects of ~100,000 characters (a Subject folded over 100 lines of 998) that make
# a careless reading quadratic: blobs scanned again after each one taken off, nested
# `[fwd: …]` copied at each level, trailers and leaders one at a time.
HOSTILE = [
    "[]" * 50_000 + "x",
    "[a]" * 33_000,
    "[" * 100_000,
    "[fwd: " * 16_000 + "x" + "]" * 16_000,
    "re: " * 25_000 + "x",
    "x" + " (fwd)" * 16_000,
    "[]" * 25_000 + "[" * 50_000,
    "=?utf-8?q?" * 10_000,
]


@pytest.mark.parametrize("subject", HOSTILE, ids=lambda s: repr(s[:12]))
def test_hostile_subjects_are_read_within_the_margin(subject: str) -> None:
    base, _ = within_margin(lambda: base_subject(subject))
    assert len(base) <= len(subject)

"""SORT, UID SORT, THREAD and UID THREAD as RFC 5256 §4 writes them; pymap 0.36.7 has none.

    sort   = ["UID" SP] "SORT" SP sort-criteria SP search-criteria
    thread = ["UID" SP] "THREAD" SP thread-alg SP search-criteria
    sort-criteria   = "(" sort-criterion *(SP sort-criterion) ")"
    sort-criterion  = ["REVERSE" SP] sort-key
    search-criteria = charset 1*(SP search-key)

ESORT (RFC 5267 §3) puts RETURN options before the criteria, as ESEARCH puts them on
SEARCH (imap_view/search_charset.py: MIN, MAX, ALL, COUNT; `RETURN ()` is ALL; any other
is `BAD`):

    sort =/ ["UID" SP] "SORT" SP "RETURN" SP "(" [opt *(SP opt)] ")" SP sort-criteria …

The search keys are SEARCH's, read by the same parser (imap_view/condstore_parsing.py:
MODSEQ anywhere, NOT, OR and parentheses at most 32 deep), and the charset, which SORT
and THREAD require, is checked as SEARCH checks it (imap_view/search_charset.py): one
no converter knows makes the command a refusal, `NO [BADCHARSET (UTF-8 US-ASCII)]`
when it runs (after the state checks: logged in, a mailbox selected); a search string
its charset cannot decode, an unknown sort key or algorithm, `REVERSE` with no key
after it, an empty or over-long criteria list are `BAD`. A sort key named twice is
used once: the second can never order what the first left equal.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command import CommandSelect
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.specials import AString, SearchKey

from imap_view.condstore_parsing import KeyBudget, ModseqSearchKey
from imap_view.search_charset import RETURNS
from imap_view.sort_order import SORT_KEYS, Criterion

__all__ = [
    "ALGORITHMS",
    "MAX_CRITERIA",
    "SortCommand",
    "ThreadCommand",
    "UidSortCommand",
    "UidThreadCommand",
]

ALGORITHMS: Final = (b"ORDEREDSUBJECT", b"REFERENCES")  # RFC 5256 §3
MAX_CRITERIA: Final = 18  # words in a sort-criteria list: nine keys, each reversed, fit
_CRITERIA = re.compile(rb" *\(([A-Za-z ]*)\)")
_RETURN = re.compile(rb"RETURN +\(([A-Za-z ]*)\) ", re.I)
_ALGORITHM = re.compile(rb" *([A-Za-z]+)")


def _program(words: list[bytes]) -> list[Criterion]:
    """The sort-criterion list, each key once; ValueError when it is none."""
    if not words or len(words) > MAX_CRITERIA:
        raise ValueError(words)
    program: list[Criterion] = []
    reverse = False
    for word in words:
        if word == b"REVERSE" and not reverse:
            reverse = True
            continue
        if word not in SORT_KEYS:
            raise ValueError(word)
        if all(criterion.key != word for criterion in program):
            program.append(Criterion(word, reverse))
        reverse = False
    if reverse:
        raise ValueError(words)
    return program


class _SearchCriteria(CommandSelect):
    """What SORT and THREAD share: `search-criteria` after their own argument."""

    uid: ClassVar[bool] = False

    def __init__(self, tag: bytes, keys: list[SearchKey], charset: str | None) -> None:
        super().__init__(tag)
        self.keys = frozenset(keys)
        self.charset = charset  # None: one no converter knows (the refusal)

    @classmethod
    def _criteria(
        cls, buf: memoryview, params: Params
    ) -> tuple[list[SearchKey], str | None, memoryview]:
        """charset 1*(SP search-key) EOL, after the SP before the charset; a charset
        not known leaves the rest of the line unread (the command is refused)."""
        name, buf = AString.parse(buf, params)
        try:
            charset = name.value.decode("ascii")
            b" ".decode(charset)
        except (UnicodeError, LookupError):
            return [], None, buf[0:0]
        keys: list[SearchKey] = []
        key_params, budget = params.copy(charset=charset), KeyBudget()
        try:
            while True:
                try:
                    _, after = Space.parse(buf, params)
                    key, buf = ModseqSearchKey.parse(after, key_params, budget)
                except NotParseable:
                    if not keys:
                        raise
                    break
                keys.append(key)
        except (UnicodeError, LookupError) as exc:  # a string its charset cannot decode
            raise NotParseable(buf) from exc
        _, buf = EndLine.parse(buf, params)
        return keys, charset, buf


class SortCommand(_SearchCriteria):
    """SORT (RFC 5256 §3): the messages the search finds, in the order of `program`."""

    command = b"SORT"

    def __init__(
        self,
        tag: bytes,
        program: list[Criterion],
        keys: list[SearchKey],
        charset: str | None,
        returns: tuple[bytes, ...] | None = None,
    ) -> None:
        super().__init__(tag, keys, charset)
        self.program = tuple(program)
        self.returns = returns  # ESORT's options; None: a plain SORT

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[SortCommand, memoryview]:
        returns = None
        if bytes(buf[:8]).upper() == b" RETURN ":
            listed = _RETURN.match(buf, 1)
            words = [] if listed is None else listed.group(1).upper().split()
            if listed is None or not set(words) <= set(RETURNS):
                raise NotParseable(buf)
            returns = tuple(dict.fromkeys(words or [b"ALL"]))
            buf = buf[listed.end(0) - 1 :]
        match = _CRITERIA.match(buf)
        if match is None:
            raise NotParseable(buf)
        try:
            program = _program(match.group(1).upper().split())
        except ValueError as exc:
            raise NotParseable(buf) from exc
        _, buf = Space.parse(buf[match.end(0) :], params)
        keys, charset, buf = cls._criteria(buf, params)
        return cls(params.tag, program, keys, charset, returns), buf


class UidSortCommand(SortCommand):
    command = b"UID SORT"
    delegate = SortCommand
    uid = True


class ThreadCommand(_SearchCriteria):
    """THREAD (RFC 5256 §3) with ORDEREDSUBJECT or REFERENCES."""

    command = b"THREAD"

    def __init__(
        self, tag: bytes, algorithm: bytes, keys: list[SearchKey], charset: str | None
    ) -> None:
        super().__init__(tag, keys, charset)
        self.algorithm = algorithm

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[ThreadCommand, memoryview]:
        match = _ALGORITHM.match(buf)
        if match is None or match.group(1).upper() not in ALGORITHMS:
            raise NotParseable(buf)
        _, buf = Space.parse(buf[match.end(0) :], params)
        keys, charset, buf = cls._criteria(buf, params)
        return cls(params.tag, match.group(1).upper(), keys, charset), buf


class UidThreadCommand(ThreadCommand):
    command = b"UID THREAD"
    delegate = ThreadCommand
    uid = True

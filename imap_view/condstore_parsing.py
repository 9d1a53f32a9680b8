"""CONDSTORE's syntax that pymap 0.36.7's parser refuses: the MODSEQ fetch item and search key.

RFC 7162 §3.1.4 adds `MODSEQ` to FETCH's items and §3.1.5 `MODSEQ [entry-name
entry-type] n` to SEARCH's keys; pymap's `FetchAttribute.parse` and
`SearchKey.parse` know neither. These subclasses parse them and leave every
other item and key to pymap; FETCH and SEARCH (UID too) are re-registered with
them (imap_view/config.py, imap_view/search_charset.py). The command options
(`CHANGEDSINCE`, `UNCHANGEDSINCE`, `VANISHED`, SELECT's `CONDSTORE` and
`QRESYNC`) are RFC 4466 options, which pymap parses already.

A MODSEQ search key may stand wherever a search key may: pymap reads OR's two
keys and a parenthesised list with its own `SearchKey.parse`, which knows no
MODSEQ, so `ModseqSearchKey` parses NOT, OR and parentheses itself, recursing into
itself; imap_view/condstore_search.py evaluates what it builds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import suppress

from pymap.frozen import frozenlist
from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command.select import FetchCommand, SearchCommand
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List
from pymap.parsing.specials import FetchAttribute, FetchRequirement, SearchKey, SequenceSet
from pymap.parsing.specials.fetchattr import FetchPartial
from pymap.parsing.specials.options import ExtensionOptions

from imap_view.fetch_sections import listed_label, with_listed_headers

__all__ = [
    "ModseqFetchAttribute",
    "ModseqFetchCommand",
    "ModseqSearchCommand",
    "ModseqSearchKey",
    "ModseqUidFetchCommand",
    "ModseqUidSearchCommand",
]

_MODSEQ_ITEM = re.compile(rb" *MODSEQ(?=[\s)]|$)", re.I)
# RFC 7162 §7: search-modsequence = "MODSEQ" [search-modseq-ext] SP mod-sequence-valzer,
# search-modseq-ext = SP entry-name SP entry-type-req (a quoted flag name; ignored here:
# one mod-sequence per message serves every flag).
_MODSEQ_KEY = re.compile(
    rb'MODSEQ(?: +"(?:[^"\\\r\n]|\\.)*" +(?:PRIV|SHARED|ALL))? +(\d{1,19})', re.I
)
_MAX_MODSEQ = 9_223_372_036_854_775_807  # RFC 7162 §7: 63 bits
_NOT = re.compile(rb"NOT +", re.I)
_OR = re.compile(rb"OR +", re.I)
_LIST_END = re.compile(rb" *\)")
# How deep NOT, OR and parentheses may nest. pymap has no bound, and a 64 KiB line of
# `(` would run Python out of stack; no client nests a search half as deep.
MAX_NESTING = 32
# How many search keys one command may give, nested ones counted. Each takes pymap
# ~25 µs to parse, on the event loop: a 64 KiB line of `ALL ` (16,000 keys) held it
# for 0.4 s. No client writes a thousand keys into one search.
MAX_SEARCH_KEYS = 1_000


class KeyBudget:
    """The search keys a command has left to give (`MAX_SEARCH_KEYS` to start)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_SEARCH_KEYS

    def spend(self, buf: memoryview) -> None:
        if self.left == 0:
            raise NotParseable(buf)
        self.left -= 1


class ModseqFetchAttribute(FetchAttribute):
    """pymap's FETCH item, MODSEQ (RFC 7162 §3.1.4.1) too: metadata, no content.
    BINARY.PEEK is answered as BINARY, a header list as written (below)."""

    def __init__(
        self,
        attribute: bytes,
        section: FetchAttribute.Section | None = None,
        partial: FetchPartial | None = None,
    ) -> None:
        super().__init__(attribute, section, partial)
        self._answered: FetchAttribute | None = None

    @property
    def for_response(self) -> FetchAttribute:
        """RFC 3516 §4.2: the reply to `BINARY.PEEK[1]` is `BINARY[1]`, as `BODY.PEEK[1]`'s
        is `BODY[1]` (RFC 3501 §7.4.2); pymap 0.36.7 answered `BINARY.PEEK[1]`, which
        imapclient stored as a value. A partial keeps only its origin, as pymap's."""
        made = self._answered
        if made is None:
            answered = super().for_response
            value = b"BINARY" if answered.value == b"BINARY.PEEK" else answered.value
            made = answered
            if value != answered.value or type(answered) is not ModseqFetchAttribute:
                made = ModseqFetchAttribute(value, answered.section, answered.partial)
            self._answered = made
        return made

    @property
    def raw(self) -> bytes:
        """pymap's label, a header list as the client wrote it (imap_view/fetch_sections.py)."""
        return listed_label(super().raw, self.section)

    @property
    def requirement(self) -> FetchRequirement:
        if self.attribute == b"MODSEQ":
            return FetchRequirement.METADATA
        return super().requirement

    @classmethod
    def _parse_section(
        cls, buf: memoryview, params: Params
    ) -> tuple[FetchAttribute.Section, memoryview]:
        section, after = super()._parse_section(buf, params)
        return with_listed_headers(section, buf[: len(buf) - len(after)], params), after

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[FetchAttribute, memoryview]:
        match = _MODSEQ_ITEM.match(buf)
        if match is not None:
            return cls(b"MODSEQ"), buf[match.end(0) :]
        return super().parse(buf, params)


class ModseqFetchCommand(FetchCommand):
    """pymap's FETCH (its parse, 0.36.7) with `ModseqFetchAttribute` for the items."""

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[FetchCommand, memoryview]:
        _, buf = Space.parse(buf, params)
        seq_set, buf = SequenceSet.parse(buf, params)
        _, buf = Space.parse(buf, params)
        attributes: Sequence[FetchAttribute] = []
        with suppress(NotParseable):
            attributes, buf = cls._check_macros(buf, params)
        if not attributes:
            try:
                attribute, buf = ModseqFetchAttribute.parse(buf, params)
                attributes = [attribute]
            except NotParseable:
                items, buf = List.parse(buf, params.copy(expected=[ModseqFetchAttribute]))
                attributes = items.get_as(ModseqFetchAttribute)
        if params.uid:
            attributes = [*attributes, FetchAttribute(b"UID")]
        options, buf = ExtensionOptions.parse(buf, params)
        _, buf = EndLine.parse(buf, params)
        return cls(params.tag, seq_set, attributes, options), buf


class ModseqUidFetchCommand(ModseqFetchCommand):
    command = b"UID FETCH"
    delegate = FetchCommand
    uid = True

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[FetchCommand, memoryview]:
        return super().parse(buf, params.copy(uid=True))


class ModseqSearchKey(SearchKey):
    """pymap's search key, or `MODSEQ n` (`filter` is n): messages whose mod-sequence is
    n or more (RFC 7162 §3.1.5); `NOT MODSEQ n` those below it. NOT, OR and
    parenthesised lists are parsed here (RFC 3501 §9 `search-key`), so a MODSEQ may
    stand inside them; every other key is pymap's."""

    @classmethod
    def parse(
        cls, buf: memoryview, params: Params, budget: KeyBudget | None = None
    ) -> tuple[SearchKey, memoryview]:
        """One search-key; `budget`, the command's, is spent on it and on every key
        nested in it."""
        return cls._parse_nested(buf, params, 0, budget or KeyBudget())

    @classmethod
    def _parse_nested(
        cls, buf: memoryview, params: Params, depth: int, budget: KeyBudget
    ) -> tuple[SearchKey, memoryview]:
        budget.spend(buf)
        rest = buf[cls._whitespace_length(buf) :]
        modseq = _MODSEQ_KEY.match(rest)
        if modseq is not None:
            value = int(modseq.group(1))
            if value > _MAX_MODSEQ:
                raise NotParseable(buf)
            return cls(b"MODSEQ", value), rest[modseq.end(0) :]
        inverse, either = _NOT.match(rest), _OR.match(rest)
        nested = inverse is not None or either is not None or bytes(rest[0:1]) == b"("
        if not nested:
            return super().parse(buf, params)
        if depth == MAX_NESTING:
            raise NotParseable(buf)
        if inverse is not None:  # "NOT" SP search-key
            key, after = cls._parse_nested(rest[inverse.end(0) :], params, depth + 1, budget)
            return cls(key.value, key.filter, not key.inverse), after
        if either is not None:  # "OR" SP search-key SP search-key
            left, after = cls._parse_nested(rest[either.end(0) :], params, depth + 1, budget)
            _, after = Space.parse(after, params)
            right, after = cls._parse_nested(after, params, depth + 1, budget)
            return cls(b"OR", (left, right)), after
        keys, after = cls._parse_list(rest[1:], params, depth + 1, budget)
        return cls(b"KEYSET", frozenlist(keys)), after

    @classmethod
    def _parse_list(
        cls, buf: memoryview, params: Params, depth: int, budget: KeyBudget
    ) -> tuple[list[SearchKey], memoryview]:
        """After "(": search-key *(SP search-key) ")" (RFC 3501 §9; never empty)."""
        keys: list[SearchKey] = []
        while True:
            end = _LIST_END.match(buf)
            if end is not None and keys:
                return keys, buf[end.end(0) :]
            if keys and not cls._whitespace_length(buf):
                raise NotParseable(buf)
            if params.list_limit is not None and len(keys) == params.list_limit:
                raise NotParseable(buf)
            key, buf = cls._parse_nested(buf, params, depth, budget)
            keys.append(key)


class ModseqSearchCommand(SearchCommand):
    """pymap's SEARCH (its parse, 0.36.7) with `ModseqSearchKey` for its keys."""

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[SearchCommand, memoryview]:
        options, buf = cls._parse_options(buf, params)
        charset, buf = cls._parse_charset(buf, params)
        keys: list[SearchKey] = []
        key_params, budget = params.copy(charset=charset), KeyBudget()
        while True:
            try:
                _, buf = Space.parse(buf, params)
                key, buf = ModseqSearchKey.parse(buf, key_params, budget)
                keys.append(key)
            except NotParseable:
                if not keys:
                    raise
                break
        _, buf = EndLine.parse(buf, params)
        return cls(params.tag, keys, charset, options), buf


class ModseqUidSearchCommand(ModseqSearchCommand):
    command = b"UID SEARCH"
    delegate = SearchCommand
    uid = True

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[SearchCommand, memoryview]:
        return super().parse(buf, params.copy(uid=True))

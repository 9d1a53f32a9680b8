"""CONDSTORE's syntax that pymap 0.36.7's parser refuses: the MODSEQ fetch item and search key.

RFC 7162 §3.1.4 adds `MODSEQ` to FETCH's items and §3.1.5 `MODSEQ [entry-name
entry-type] n` to SEARCH's keys; pymap's `FetchAttribute.parse` and
`SearchKey.parse` know neither. These subclasses parse them and leave every
other item and key to pymap; FETCH and SEARCH (UID too) are re-registered with
them (imap_view/config.py, imap_view/search_charset.py). The command options
(`CHANGEDSINCE`, `UNCHANGEDSINCE`, `VANISHED`, SELECT's `CONDSTORE` and
`QRESYNC`) are RFC 4466 options, which pymap parses already.

A MODSEQ search key is understood at the top level of the search and after NOT,
which is where clients put it; inside OR or parentheses pymap's own parser reads
it, and the command is a `BAD`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import suppress

from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command.select import FetchCommand, SearchCommand
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List
from pymap.parsing.specials import FetchAttribute, FetchRequirement, SearchKey, SequenceSet
from pymap.parsing.specials.options import ExtensionOptions

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
    rb'(NOT +)?MODSEQ(?: +"(?:[^"\\\r\n]|\\.)*" +(?:PRIV|SHARED|ALL))? +(\d{1,19})', re.I
)
_MAX_MODSEQ = 9_223_372_036_854_775_807  # RFC 7162 §7: 63 bits


class ModseqFetchAttribute(FetchAttribute):
    """pymap's FETCH item, MODSEQ (RFC 7162 §3.1.4.1) too: metadata, no content."""

    @property
    def requirement(self) -> FetchRequirement:
        if self.attribute == b"MODSEQ":
            return FetchRequirement.METADATA
        return super().requirement

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
    n or more (RFC 7162 §3.1.5); `NOT MODSEQ n` those below it."""

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[SearchKey, memoryview]:
        start = cls._whitespace_length(buf)
        match = _MODSEQ_KEY.match(buf, start)
        if match is not None:
            value = int(match.group(2))
            if value > _MAX_MODSEQ:
                raise NotParseable(buf)
            return cls(b"MODSEQ", value, inverse=bool(match.group(1))), buf[match.end(0) :]
        return super().parse(buf, params)


class ModseqSearchCommand(SearchCommand):
    """pymap's SEARCH (its parse, 0.36.7) with `ModseqSearchKey` for the top-level keys."""

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[SearchCommand, memoryview]:
        options, buf = cls._parse_options(buf, params)
        charset, buf = cls._parse_charset(buf, params)
        keys: list[SearchKey] = []
        while True:
            try:
                _, buf = Space.parse(buf, params)
                key, buf = ModseqSearchKey.parse(buf, params.copy(charset=charset))
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

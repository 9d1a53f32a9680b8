"""Command lines parsed once: a repeated line after its tag is the same command.

Mail clients poll with the same lines again and again (`NOOP`, `STATUS INBOX
(MESSAGES UNSEEN UIDNEXT)`, `UID SEARCH UNSEEN`, `UID FETCH 1:* (FLAGS)`), and
pymap parsed each anew: parameter copies, a regular expression per token, an object
per list item. A command's parse depends
only on the bytes after the tag, on the parsing parameters and on whether the
session enabled UTF8=ACCEPT (mailbox names, imap_view/mailbox_names.py): RFC 3501
§9's grammar has no other state besides literals. So the parsed command of a line
is kept, by those, and a later line with the same bytes gets a copy of it carrying
its own tag. A FETCH is kept by its line without its sequence set too: a line that
differs only there (a client fetching one message per command) gets a copy carrying
its own set, read as pymap reads it (`_sequence_set`; a set outside RFC 3501 §9's
strict grammar sends the line to pymap's parse).

Only the commands named in `_KEPT` are kept: those that read (never LOGIN or
AUTHENTICATE, whose lines hold secrets, nor APPEND's message), and only lines with
no literal (`{n}`: their parse reads continuations). A kept command is shared by
its copies, so nothing may change one after parsing; nothing in pymap or here does
(a FETCH's attributes are copied before use, imap_view/condstore.py). The copy is
made from the command's `__dict__` (pymap's commands keep every field there; their
classes' `__slots__` are empty): `copy.copy` went through `__reduce_ex__` and
`copyreg`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

from pymap.parsing import Params
from pymap.parsing.command import Command
from pymap.parsing.commands import Commands, InvalidCommand
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.specials import SequenceSet, Tag
from pymap.parsing.specials.sequenceset import MaxValue

from imap_view.mailbox_names import UTF8_NAMES

__all__ = ["KeptCommands"]

_KEPT = frozenset(
    {
        b"CAPABILITY", b"NOOP", b"CHECK", b"NAMESPACE", b"LIST", b"LSUB", b"STATUS",
        b"SELECT", b"EXAMINE", b"FETCH", b"SEARCH", b"UID",
    }
)  # fmt: skip
_UID_KEPT = frozenset({b"FETCH", b"SEARCH"})  # UID STORE, COPY, MOVE, EXPUNGE write
_MAX = 2048  # lines kept (the dictionary starts again past this many)
# A FETCH whose line differs from a kept one only in its sequence set (mbsync's
# `UID FETCH 17 (BODY.PEEK[])`, one per message): the kept command with the new set.
_FETCH = re.compile(rb" *((?:UID +)?FETCH +)([0-9:*,]+)( +.*)", re.IGNORECASE | re.DOTALL)


def _keeps(rest: bytes) -> bool:
    """Whether the line after its tag names a kept command and has no literal."""
    if b"{" in rest:
        return False
    words = rest.split(None, 2)
    if not words or words[0].upper() not in _KEPT:
        return False
    return words[0].upper() != b"UID" or (len(words) > 1 and words[1].upper() in _UID_KEPT)


class KeptCommands(Commands):
    """pymap's `Commands` whose `parse` keeps the commands of repeated lines."""

    __slots__ = ["_kept"]

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[Hashable, Command] = {}

    def parse(self, buf: memoryview, params: Params) -> tuple[Command, memoryview]:
        try:
            tag, rest = Tag.parse(buf, params)
        except NotParseable:
            return super().parse(buf, params)
        line = bytes(rest)  # with a literal (`{`), never kept: so never found either
        key = (
            line,
            params.uid,
            params.charset,
            params.max_append_len,
            params.list_limit,
            UTF8_NAMES.get(),  # a mailbox name's octets read as UTF-8 or modified UTF-7
        )
        kept = self._kept.get(key)
        if kept is not None:
            return _copy(kept, tag), buf[len(buf) :]
        fetch = _FETCH.fullmatch(line) if b"{" not in line else None
        shape = None
        if fetch is not None:  # the same FETCH of other messages
            shape = (fetch.group(1).upper(), fetch.group(3), *key[1:])
            kept = self._kept.get(shape)
            if kept is not None and _SET.fullmatch(fetch.group(2)) is not None:
                uid = fetch.group(1)[:1] in b"Uu"
                numbers = _sequence_set(fetch.group(2), uid)
                command = _copy(kept, tag)
                command.sequence_set = numbers  # type: ignore[attr-defined]
                return command, buf[len(buf) :]
        command, left = super().parse(buf, params)
        if not isinstance(command, InvalidCommand) and not len(left) and _keeps(line):
            if len(self._kept) >= _MAX:
                self._kept.clear()
            self._kept[key] = command
            if shape is not None:
                self._kept[shape] = command
        return command, left


# RFC 3501 §9 `sequence-set`, strictly (no empty element, no trailing comma).
_NUMBER = rb"(?:[1-9][0-9]*|\*)"
_SET = re.compile(rb"%b(?::%b)?(?:,%b(?::%b)?)*" % ((_NUMBER,) * 4))
_STAR = MaxValue()  # `*`


def _sequence_set(text: bytes, uid: bool) -> SequenceSet:
    """`SequenceSet.parse` of a set `_SET` matches: the same elements (a number, `*` as
    `MaxValue`, a pair for a range), without a regular expression per element. A set
    it does not match is parsed with its line by pymap (which refuses a line whose
    set ends in a comma, and takes the same set alone)."""
    elements: list[int | MaxValue | tuple[int | MaxValue, int | MaxValue]] = []
    for part in text.split(b","):
        first, colon, second = part.partition(b":")
        low: int | MaxValue = _STAR if first == b"*" else int(first)
        elements.append((low, _STAR if second == b"*" else int(second)) if colon else low)
    return SequenceSet(elements, uid=uid)


def _copy(kept: Command, tag: Tag) -> Command:
    """A kept command for another line: its fields shared, its own tag."""
    command = object.__new__(type(kept))
    command.__dict__.update(kept.__dict__)
    command.tag = tag.value
    return command

"""A FETCH section's header list answered as the client wrote it.

RFC 3501 §7.4.2: the reply's `BODY[section]` names the section as asked, and a client
finds its data by that name. pymap 0.36 keeps the names of
`BODY[HEADER.FIELDS (…)]` as a set and answers them sorted and deduplicated, so
`BODY[HEADER.FIELDS (FROM FROM)]` came back as `BODY[HEADER.FIELDS (FROM)]` and
`(SUBJECT FROM)` as `(FROM SUBJECT)`. Dovecot, the oracle, repeats the list in its
order, duplicates kept, upper-cased; so does `ListedSection` (the set still says
which fields are written, each once).
"""

from __future__ import annotations

from collections.abc import Sequence

from pymap.parsing import Params
from pymap.parsing.primitives import List
from pymap.parsing.specials import AString, FetchAttribute

__all__ = ["ListedSection", "listed_label", "with_listed_headers"]


class ListedSection(FetchAttribute.Section):
    """A section whose header list is kept as written (`listed`, upper-cased)."""

    def __init__(
        self, parts: Sequence[int], specifier: bytes | None, listed: tuple[bytes, ...]
    ) -> None:
        super().__init__(parts, specifier, frozenset(listed))
        self.listed = tuple(name.upper() for name in listed)

    def __hash__(self) -> int:
        # pymap compares FETCH items by hash: `(FROM FROM)` is another item than `(FROM)`.
        return hash((tuple(self.parts), self.specifier, self.listed))


def with_listed_headers(
    section: FetchAttribute.Section, read: memoryview, params: Params
) -> FetchAttribute.Section:
    """`section` as pymap parsed it from `read` (the text it consumed), its header
    list, if it has one, kept as written."""
    if not section.headers:
        return section
    text = bytes(read)
    items, _ = List.parse(read[text.index(b"(") :], params.copy(expected=[AString]))
    listed = tuple(bytes(item) for item in items.value)
    return ListedSection(section.parts, section.specifier, listed)


def listed_label(label: bytes, section: FetchAttribute.Section | None) -> bytes:
    """pymap's label of an item (`BODY[HEADER.FIELDS (A B)]<0>`) with the header list
    of a `ListedSection` as written."""
    if not isinstance(section, ListedSection) or section.headers is None:
        return label
    written = bytes(List(section.headers, sort=True))
    return label.replace(written, bytes(List(list(section.listed))), 1)

"""A FETCH section's header list is answered as the client wrote it (imap_view/fetch_sections.py),
as Dovecot answers it: in its order, duplicates kept, upper-cased; the fields written are
still each named field once. Items that differ only in their list are different items."""

from __future__ import annotations

import pytest
from pymap.parsing import Params

from imap_view.condstore_parsing import ModseqFetchAttribute


def _answered(item: bytes) -> bytes:
    attribute, left = ModseqFetchAttribute.parse(memoryview(item), Params())
    assert bytes(left) == b""
    return bytes(attribute.for_response)


@pytest.mark.parametrize(
    ("item", "label"),
    [
        (b"BODY.PEEK[HEADER.FIELDS (from from)]", b"BODY[HEADER.FIELDS (FROM FROM)]"),
        (b"BODY.PEEK[HEADER.FIELDS (subject From)]", b"BODY[HEADER.FIELDS (SUBJECT FROM)]"),
        (b"BODY[HEADER.FIELDS.NOT (X-B X-A X-B)]", b"BODY[HEADER.FIELDS.NOT (X-B X-A X-B)]"),
        (b"BODY[1.HEADER.FIELDS (to cc)]", b"BODY[1.HEADER.FIELDS (TO CC)]"),
        (b"BODY.PEEK[HEADER.FIELDS (to cc)]<0.10>", b"BODY[HEADER.FIELDS (TO CC)]<0>"),
        (b"BODY.PEEK[HEADER]", b"BODY[HEADER]"),
        (b"BINARY.PEEK[1]<2.3>", b"BINARY[1]<2>"),
        (b"BINARY.PEEK[1]", b"BINARY[1]"),
    ],
)
def test_the_item_is_answered_as_asked(item: bytes, label: bytes) -> None:
    assert _answered(item) == label


def test_the_fields_are_named_once_and_lists_make_distinct_items() -> None:
    twice, _ = ModseqFetchAttribute.parse(memoryview(b"BODY[HEADER.FIELDS (A A)]"), Params())
    once, _ = ModseqFetchAttribute.parse(memoryview(b"BODY[HEADER.FIELDS (A)]"), Params())
    assert twice.section is not None and twice.section.headers == frozenset({b"A"})
    assert twice != once and hash(twice) != hash(once)

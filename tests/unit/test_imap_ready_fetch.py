"""imap_view/ready_fetch.py writes the flag FETCH lines pymap's `FetchResponse` wrote."""

from __future__ import annotations

import pytest
from pymap.parsing.primitives import List, Number
from pymap.parsing.response import ResponseOk
from pymap.parsing.response.specials import FetchResponse
from pymap.parsing.specials import FetchAttribute, FetchValue
from pymap.parsing.specials.flag import Answered, Deleted, Flag, Flagged, Seen

from imap_view.ready_fetch import ReadyFetch, flags_value, uid_value
from imap_view.selected import modseq_value

FLAG_SETS = [
    frozenset(),
    frozenset({Seen}),
    frozenset({Flagged, Answered, Deleted, Flag(b"$Label1"), Flag(b"Junk")}),
]


def _theirs(flags: frozenset[Flag], uid: int, modseq: int) -> list[FetchValue]:
    return [
        FetchValue.of(FetchAttribute(b"FLAGS"), List(flags, sort=True)),
        FetchValue.of(FetchAttribute(b"UID"), Number(uid)),
        FetchValue.of(FetchAttribute(b"MODSEQ"), List([Number(modseq + 1)])),
    ]


def _ours(flags: frozenset[Flag], uid: int, modseq: int) -> list[FetchValue]:
    return [flags_value(flags), uid_value(uid), modseq_value(modseq)]


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_a_line_is_the_one_pymap_wrote(flags: frozenset[Flag]) -> None:
    for count in (1, 2, 3):  # FLAGS; with UID; with MODSEQ (stored + 1 on the wire)
        ours = ReadyFetch(7, _ours(flags, 42, 9)[:count])
        theirs = FetchResponse(7, _theirs(flags, 42, 9)[:count])
        assert bytes(ours) == bytes(theirs)


async def test_lines_merge_as_pymaps_did() -> None:
    """A STORE's answer and the updates of the same command for the same message make
    one line, the later values winning; a line is written alike synchronously or not."""
    ours, theirs = ResponseOk(b"a", b"STORE completed."), ResponseOk(b"a", b"STORE completed.")
    ours.add_untagged(ReadyFetch(3, _ours(frozenset({Seen}), 5, 1)[:1]))
    theirs.add_untagged(FetchResponse(3, _theirs(frozenset({Seen}), 5, 1)[:1]))
    later = frozenset({Seen, Flagged})
    ours.add_untagged(ReadyFetch(3, _ours(later, 5, 2)), ReadyFetch(4, _ours(later, 6, 2)))
    theirs.add_untagged(
        FetchResponse(3, _theirs(later, 5, 2)), FetchResponse(4, _theirs(later, 6, 2))
    )
    assert bytes(ours) == bytes(theirs)
    assert bytes(ours).count(b"* 3 FETCH") == 1
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

    await ours.async_write(Writer())
    assert b"".join(written) == bytes(theirs)

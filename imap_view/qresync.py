"""What a QRESYNC client is told to catch up (RFC 7162 §3.2.5, §3.2.6): VANISHED and FETCH.

`SELECT … (QRESYNC (uidvalidity modseq [known-uids]))` answers, after the usual
SELECT data, `* VANISHED (EARLIER) <uids>` for the messages that left since
`modseq` and a `FETCH (UID FLAGS MODSEQ)` for each message that changed or arrived
since, both limited to `known-uids` when given. `UID FETCH … (CHANGEDSINCE m
VANISHED)` gives the same VANISHED for the UIDs it names.

The UIDs that left come from the expunge records (core/mailboxes/expunged.py). When
those were pruned, the answer is every UID the client may know (`known-uids`, else
1 up to UIDNEXT) that is not in the folder now: RFC 7162 §3.2.5.2 allows UIDs the
client never saw, so the client still ends with exactly the folder's messages.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from pymap.parsing import Params
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List
from pymap.parsing.response import UntaggedResponse
from pymap.parsing.specials import SequenceSet

from imap_view.message import Message
from imap_view.pymap_compat import message_by_uid, sequence_range, sorted_uids
from imap_view.ready_fetch import ReadyFetch, flags_value, uid_value
from imap_view.selected import GatewaySelected, VanishedResponse, modseq_value

__all__ = ["QresyncParameters", "changed_fetches", "vanished_response"]

_MAX_MODSEQ = 9_223_372_036_854_775_807


@dataclass(frozen=True, slots=True)
class QresyncParameters:
    """RFC 7162 §3.2.5: `QRESYNC (uidvalidity mod-sequence-value [known-uids
    [seq-match-data]])`; seq-match-data is checked and not used (the expunge
    records make it unnecessary)."""

    uid_validity: int
    modseq: int  # as the client sent it (wire)
    known: SequenceSet | None

    @classmethod
    def of(cls, argument: List) -> QresyncParameters:
        """Raises ValueError for anything RFC 7162 §7's grammar does not allow."""
        items = list(argument.value)
        if not 2 <= len(items) <= 4 or any(isinstance(i, List) for i in items[:2]):
            raise ValueError("QRESYNC (uidvalidity modseq [known-uids [seq-match-data]])")
        uid_validity, modseq = int(bytes(items[0])), int(bytes(items[1]))
        if not (0 < uid_validity < 2**32 and 0 < modseq <= _MAX_MODSEQ):
            raise ValueError("out of range")
        known = None
        rest = items[2:]
        if rest and not isinstance(rest[0], List):
            known = _uid_set(bytes(rest[0]))
            rest = rest[1:]
        if rest:
            pair = rest[0]
            if len(rest) > 1 or not isinstance(pair, List) or len(pair.value) != 2:
                raise ValueError("seq-match-data = (known-sequence-set known-uid-set)")
            for half in pair.value:
                _uid_set(bytes(half))
        return cls(uid_validity, modseq, known)


def _uid_set(text: bytes) -> SequenceSet:
    try:
        uids, rest = SequenceSet.parse(memoryview(text), Params(uid=True))
    except NotParseable as exc:
        raise ValueError("not a sequence set") from exc
    if bytes(rest):
        raise ValueError("not a sequence set")
    return uids


def _ranges(uids: SequenceSet | None, upto: int) -> list[range]:
    """The UID ranges of the set (all of 1..upto without one), clipped to 1..upto."""
    if uids is None:
        return [range(1, upto + 1)]
    clipped = []
    for element in uids.sequences:
        numbers = sequence_range(element, upto)
        assert isinstance(numbers, range)
        start, stop = max(numbers.start, 1), min(numbers.stop, upto + 1)
        if start < stop:
            clipped.append(range(start, stop))
    return clipped


def _absent(present: Sequence[int], ranges: list[range]) -> list[int | tuple[int, int]]:
    """The UIDs in `ranges` that are not in `present` (ascending), as ranges: O(present)."""
    gaps: list[int | tuple[int, int]] = []
    for span in ranges:
        at = span.start
        index = bisect_left(present, at)
        while at < span.stop:
            following = present[index] if index < len(present) else span.stop
            end = min(following, span.stop)
            if at < end:
                gaps.append(at if end - 1 == at else (at, end - 1))
            at, index = end + 1, index + 1
    return gaps


def vanished_response(
    selected: GatewaySelected,
    recorded: list[int] | None,
    within: SequenceSet | None,
    next_uid: int,
) -> VanishedResponse | None:
    """`* VANISHED (EARLIER)` for the recorded UIDs in `within`, or, when the records
    were pruned (`recorded` None), for every UID there that is not in the folder now."""
    upto = max(next_uid - 1, selected.messages.max_uid)
    ranges = _ranges(within, upto)
    if recorded is None:
        gaps = _absent(sorted_uids(selected.messages), ranges)
        return VanishedResponse(SequenceSet(gaps, uid=True), earlier=True) if gaps else None
    kept = [uid for uid in recorded if any(uid in span for span in ranges)]
    return VanishedResponse(kept, earlier=True) if kept else None


def changed_fetches(
    selected: GatewaySelected, since: int, within: SequenceSet | None
) -> list[UntaggedResponse]:
    """A `FETCH (FLAGS UID MODSEQ)` for each message changed after the stored `since`."""
    messages = selected.messages
    ranges = _ranges(within, messages.max_uid)
    flags = selected.session_flags
    found: list[UntaggedResponse] = []
    cache = message_by_uid(messages)
    for number, uid in enumerate(sorted_uids(messages), 1):
        message = cache[uid]
        assert isinstance(message, Message)
        if message.modseq <= since or not any(uid in span for span in ranges):
            continue
        data = [flags_value(message.get_flags(flags)), uid_value(uid), modseq_value(message.modseq)]
        found.append(ReadyFetch(number, data))
    return found

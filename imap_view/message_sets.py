"""The messages a sequence set names, found by bisection (RFC 3501 §9 `sequence-set`).

pymap's `SynchronizedMessages.get_all` walks every message of the mailbox for
each command: a client that fetches one UID per command (mbsync does) pays for
the whole mailbox each time, 100,000 steps per command at 100,000 messages.
Here each range of the set is looked up in the UID-ordered list that pymap
keeps (imap_view/pymap_compat.py), so a command costs what it names.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from typing import cast

from pymap.parsing.specials import SequenceSet
from pymap.selected import SelectedMailbox

from imap_view.message import Message
from imap_view.pymap_compat import message_by_uid, sequence_range, sorted_uids

__all__ = ["FOLLOWING", "following", "messages_in"]

FOLLOWING = 256  # messages after a FETCH's whose content keys its read takes along


def messages_in(selected: SelectedMailbox, sequence_set: SequenceSet) -> list[tuple[int, Message]]:
    """(message sequence number, message) for each message in the set, ascending,
    exactly as `selected.messages.get_all(sequence_set)` gives them."""
    synced = selected.messages
    ordered = sorted_uids(synced)
    cache = message_by_uid(synced)
    count = len(ordered)
    highest = synced.max_uid if sequence_set.uid else count
    positions: set[int] = set()
    for element in sequence_set.sequences:
        numbers = sequence_range(element, highest)
        if not numbers:
            continue
        low, high = numbers[0], numbers[-1]
        if sequence_set.uid:
            positions.update(range(bisect_left(ordered, low), bisect_right(ordered, high)))
        else:
            positions.update(range(max(low, 1) - 1, min(high, count)))
    messages = cast(Mapping[int, Message], cache)  # a gateway session's view holds Messages
    return [(position + 1, messages[ordered[position]]) for position in sorted(positions)]


def following(
    selected: SelectedMailbox, wanted: list[tuple[int, Message]], count: int = FOLLOWING
) -> Iterator[Message]:
    """The `count` messages after the last of `wanted` in UID order: what a client that
    fetches one message per command (mbsync) asks for next. Made as they are taken:
    a pull asks for the first alone with every command."""
    if not wanted:
        return
    synced = selected.messages
    ordered = sorted_uids(synced)
    cache = message_by_uid(synced)
    start = bisect_right(ordered, wanted[-1][1].uid)
    for index in range(start, min(start + count, len(ordered))):
        message = cache[ordered[index]]
        assert isinstance(message, Message)
        yield message

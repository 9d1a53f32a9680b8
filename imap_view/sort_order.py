"""SORT's order (RFC 5256 §3), THREAD=ORDEREDSUBJECT (§3), and how a thread tree is written.

SORT orders by its criteria in turn, each ascending or REVERSE, and messages equal by
all of them by sequence number, which REVERSE never turns (§3: "REVERSE only reverses
a single criterion, and does not affect the implicit sequence number sort"). Python's
sort is stable also with `reverse=True`, so sorting the messages, given in sequence
order, by the last criterion first and by the first criterion last gives exactly that.
Strings compare as case-mapped (imap_view/casemap.py); a field that is not there is the
empty string, which comes first (§3).

ORDEREDSUBJECT (§3, "poor man's threading"): the messages sorted by base subject and
sent date, one thread per base subject; the threads in the order of their first
messages' sent dates; each thread is its first message with the others as its
children, so `(1)`, `(1 2)` or `(1 (2)(3))`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Final, NamedTuple

from imap_view.sort_keys import HeaderKeys

__all__ = [
    "SORT_KEYS",
    "Criterion",
    "Sortable",
    "Tree",
    "ordered_subject",
    "sorted_numbers",
    "thread_text",
]


class Sortable(NamedTuple):
    """One message as SORT and THREAD see it: `number` is what the reply names (its
    sequence number, or its UID for UID SORT and UID THREAD)."""

    number: int
    arrival: int  # INTERNALDATE, seconds since the epoch
    size: int
    keys: HeaderKeys

    @property
    def sent(self) -> int:
        """§2.2: the Date, else INTERNALDATE."""
        sent = self.keys.sent
        return self.arrival if sent is None else sent


_ORDERS: Final[dict[bytes, Callable[[Sortable], int | str]]] = {
    b"ARRIVAL": lambda item: item.arrival,
    b"CC": lambda item: item.keys.cc,
    b"DATE": lambda item: item.sent,
    b"DISPLAYFROM": lambda item: item.keys.display_from,  # RFC 5957
    b"DISPLAYTO": lambda item: item.keys.display_to,
    b"FROM": lambda item: item.keys.from_,
    b"SIZE": lambda item: item.size,
    b"SUBJECT": lambda item: item.keys.subject,
    b"TO": lambda item: item.keys.to,
}
SORT_KEYS: Final = frozenset(_ORDERS)


@dataclass(frozen=True, slots=True)
class Criterion:
    """sort-criterion = ["REVERSE" SP] sort-key (§4)."""

    key: bytes
    reverse: bool = False


def sorted_numbers(items: Iterable[Sortable], program: Sequence[Criterion]) -> list[int]:
    """The numbers of `items` (given in sequence order) in the order of `program`."""
    ordered = list(items)
    for criterion in reversed(program):
        ordered.sort(key=_ORDERS[criterion.key], reverse=criterion.reverse)
    return [item.number for item in ordered]


@dataclass(slots=True)
class Tree:
    """A thread: a message (None for a dummy, which only THREAD=REFERENCES makes at its
    top) and its children, in the order they are written."""

    number: int | None
    children: list[Tree]


def ordered_subject(items: Iterable[Sortable]) -> list[Tree]:
    """THREAD=ORDEREDSUBJECT of `items` (given in sequence order)."""
    ordered = sorted(items, key=lambda item: (item.keys.subject, item.sent))
    threads = []
    for _, group in groupby(ordered, key=lambda item: item.keys.subject):
        first, *rest = group
        children = [Tree(item.number, []) for item in rest]
        threads.append((first.sent, first.number, Tree(first.number, children)))
    threads.sort(key=lambda thread: thread[:2])
    return [tree for _, _, tree in threads]


def _nested(children: list[Tree], out: list[str]) -> None:
    """Children below the top (Dovecot's and the RFC's form): an only child follows its
    parent after a space, siblings each in parentheses. Written with a stack of what is
    still to write, not recursion: a thread may be a chain thousands of messages deep."""
    pending: list[str | list[Tree]] = [children]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if len(item) == 1:
            (only,) = item
            out.append(str(only.number))
            if only.children:
                out.append(" ")
                pending.append(only.children)
            continue
        for child in reversed(item):  # the first sibling is popped first
            if child.children:
                pending += [")", child.children, f"({child.number} "]
            else:
                pending.append(f"({child.number})")


def thread_text(threads: Sequence[Tree]) -> str:
    """thread-list *(thread-list) (§4): each thread in parentheses, a dummy's number
    left out: `(3 6 (4 23)(44 7 96))`."""
    out: list[str] = []
    for thread in threads:
        out.append("(" if thread.number is None else f"({thread.number}")
        if thread.children:
            if thread.number is not None:
                out.append(" ")
            _nested(thread.children, out)
        out.append(")")
    return "".join(out)

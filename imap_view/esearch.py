"""ESEARCH (RFC 4731): SEARCH and UID SEARCH with RETURN options, answered `* ESEARCH`.

    search-return-opts = SP "RETURN" SP "(" [search-return-opt *(SP search-return-opt)] ")"
    search-return-opt  = "MIN" / "MAX" / "ALL" / "COUNT"

pymap 0.36.7 reads any `RETURN (…)` as extension options and then ignores them; the
SEARCH commands accept only these four (imap_view/search_charset.py: another option,
or RETURN without its list, is `BAD`, as Dovecot answers; `RETURN ()` means ALL, §3.1),
and the reply is §3.1's:

    * ESEARCH (TAG "a1") UID MIN 4 MAX 9 ALL 4:6,9 COUNT 4

MIN, MAX and ALL are left out when nothing was found, COUNT is then 0. ALL is a
sequence set, ranges joined (`4:6,9`). ESORT (RFC 5267 §3) answers SORT RETURN with
the same response, its numbers in the sort's order (imap_view/sort_state.py). With a
MODSEQ search key, RFC 7162 §3.1.5 adds `MODSEQ n`: the mod-sequence of the one
message MIN or MAX returns, the higher of the two when only those were asked for, else
the highest of all found.
"""

from __future__ import annotations

from collections.abc import Sequence

from pymap.interfaces.message import MessageInterface
from pymap.parsing.command.select import SearchCommand
from pymap.parsing.response import UntaggedResponse

from imap_view.condstore import Found
from imap_view.extensions import wire_modseq
from imap_view.message import Message
from imap_view.search_charset import RETURNS

__all__ = ["esearch_response", "ordered_set", "return_options"]


def return_options(cmd: SearchCommand) -> list[bytes]:
    """The RETURN options of a SEARCH (none for a plain SEARCH)."""
    return [name for name in RETURNS if cmd.options.has(name)]


def _modseq(
    returns: Sequence[bytes], found: Found, lowest: MessageInterface, highest: MessageInterface
) -> int:
    """RFC 7162 §3.1.5: which messages' mod-sequence MODSEQ reports."""
    if b"ALL" in returns or b"COUNT" in returns:
        return found.highest_modseq()
    chosen = []
    if b"MIN" in returns:
        chosen.append(lowest)
    if b"MAX" in returns:
        chosen.append(highest)
    return max(m.modseq for m in chosen if isinstance(m, Message)) if chosen else 0


def ordered_set(numbers: Sequence[int]) -> bytes:
    """A sequence set that keeps the numbers' order (ESORT's ALL, RFC 5267 §3.1): runs
    of consecutive ascending numbers as ranges, as Dovecot writes it (`4,2,5:7`)."""
    runs: list[bytes] = []
    start = 0
    for at in range(1, len(numbers) + 1):
        if at == len(numbers) or numbers[at] != numbers[at - 1] + 1:
            first, last = numbers[start], numbers[at - 1]
            runs.append(b"%d" % first if first == last else b"%d:%d" % (first, last))
            start = at
    return b",".join(runs)


def esearch_response(
    tag: bytes,
    uid: bool,
    returns: Sequence[bytes],
    found: Found,
    order: Sequence[int] | None = None,
) -> UntaggedResponse:
    """`* ESEARCH (TAG "tag") [UID] …` for what the search found (pymap's
    ESearchResponse leaves out the word ESEARCH); with `order` (the numbers as SORT
    ordered them, RFC 5267 §3.1), MIN and MAX are the first and the last in that order,
    and ALL keeps it."""
    numbers = found.numbers(uid=uid) if order is None else list(order)
    parts = [b'ESEARCH (TAG "%s")' % tag]  # a tag has no `"` or `\\` (RFC 3501 §9)
    if uid:
        parts.append(b"UID")
    if numbers and b"MIN" in returns:
        parts.append(b"MIN %d" % numbers[0])
    if numbers and b"MAX" in returns:
        parts.append(b"MAX %d" % numbers[-1])
    if numbers and b"ALL" in returns:
        parts.append(b"ALL " + ordered_set(numbers))
    if b"COUNT" in returns:
        parts.append(b"COUNT %d" % len(numbers))
    if numbers and found.by_modseq:
        by_number = dict(zip(found.numbers(uid=uid), (m for _, m in found.messages), strict=True))
        lowest, highest = by_number[numbers[0]], by_number[numbers[-1]]
        parts.append(b"MODSEQ %d" % wire_modseq(_modseq(returns, found, lowest, highest)))
    return UntaggedResponse(b" ".join(parts))

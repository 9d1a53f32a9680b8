"""ESEARCH (RFC 4731): SEARCH and UID SEARCH with RETURN options, answered `* ESEARCH`.

    search-return-opts = SP "RETURN" SP "(" [search-return-opt *(SP search-return-opt)] ")"
    search-return-opt  = "MIN" / "MAX" / "ALL" / "COUNT"

pymap 0.36.7 reads any `RETURN (…)` as extension options and then ignores them; the
SEARCH commands accept only these four (imap_view/search_charset.py: another option,
or RETURN without its list, is `BAD`, as Dovecot answers; `RETURN ()` means ALL, §3.1),
and the reply is §3.1's:

    * ESEARCH (TAG "a1") UID MIN 4 MAX 9 ALL 4:6,9 COUNT 4

MIN, MAX and ALL are left out when nothing was found, COUNT is then 0. ALL is a
sequence set, ranges joined (`4:6,9`). With a MODSEQ search key, RFC 7162 §3.1.5 adds
`MODSEQ n`: the mod-sequence of the one message MIN or MAX returns, the higher of the
two when only those were asked for, else the highest of all found.
"""

from __future__ import annotations

from pymap.interfaces.message import MessageInterface
from pymap.parsing.command.select import SearchCommand
from pymap.parsing.response import UntaggedResponse
from pymap.parsing.specials import SequenceSet

from imap_view.condstore import Found
from imap_view.extensions import wire_modseq
from imap_view.message import Message
from imap_view.search_charset import RETURNS

__all__ = ["esearch_response", "return_options"]


def return_options(cmd: SearchCommand) -> list[bytes]:
    """The RETURN options of a SEARCH (none for a plain SEARCH)."""
    return [name for name in RETURNS if cmd.options.has(name)]


def _modseq(
    returns: list[bytes], found: Found, lowest: MessageInterface, highest: MessageInterface
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


def esearch_response(tag: bytes, uid: bool, returns: list[bytes], found: Found) -> UntaggedResponse:
    """`* ESEARCH (TAG "tag") [UID] …` for what the search found (pymap's
    ESearchResponse leaves out the word ESEARCH)."""
    numbers = found.numbers(uid=uid)  # ascending: sequence order is UID order
    parts = [b'ESEARCH (TAG "%s")' % tag]  # a tag has no `"` or `\\` (RFC 3501 §9)
    if uid:
        parts.append(b"UID")
    if numbers and b"MIN" in returns:
        parts.append(b"MIN %d" % numbers[0])
    if numbers and b"MAX" in returns:
        parts.append(b"MAX %d" % numbers[-1])
    if numbers and b"ALL" in returns:
        parts.append(b"ALL " + bytes(SequenceSet.build(numbers, uid=uid)))
    if b"COUNT" in returns:
        parts.append(b"COUNT %d" % len(numbers))
    if numbers and found.by_modseq:
        lowest, highest = found.messages[0][1], found.messages[-1][1]
        parts.append(b"MODSEQ %d" % wire_modseq(_modseq(returns, found, lowest, highest)))
    return UntaggedResponse(b" ".join(parts))

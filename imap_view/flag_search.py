"""A SEARCH of flags alone answered from the flag sets of the selected folder.

Clients poll with `UID SEARCH UNSEEN` (or `DELETED`, `FLAGGED`, `KEYWORD $Label1`):
pymap made a loaded-message object for every message and walked the criteria
through two generators for each. When
every top-level criterion is a flag test (RFC 3501 §6.4.4: ANSWERED, DELETED,
DRAFT, FLAGGED, RECENT, SEEN, KEYWORD, their UN- forms, OLD and NEW), ALL, or a MODSEQ
the caller applied already, a message matches exactly when its flags hold every
wanted flag and none of the unwanted ones; a folder's messages share a few flag
sets, so each set is judged once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pymap.parsing.specials.flag import Flag, Recent, Seen
from pymap.search import (
    AllSearchCriteria,
    HasFlagSearchCriteria,
    NewSearchCriteria,
    SearchCriteria,
)

from imap_view.condstore_search import ModseqCriteria

__all__ = ["flag_verdict"]

Verdict = Callable[[frozenset[Flag]], bool]


def flag_verdict(criteria: Sequence[SearchCriteria]) -> Verdict | None:
    """Whether a message with these flags matches, if the criteria test flags alone
    (`ModseqCriteria` are left to the caller, which narrowed by them); else None."""
    wanted: set[Flag] = set()
    unwanted: set[Flag] = set()
    for criterion in criteria:
        kind = type(criterion)
        if kind is HasFlagSearchCriteria:
            assert isinstance(criterion, HasFlagSearchCriteria)
            (wanted if criterion.expected else unwanted).add(criterion.flag)
        elif kind is NewSearchCriteria:  # RFC 3501 §6.4.4: RECENT UNSEEN
            wanted.add(Recent)
            unwanted.add(Seen)
        elif kind is not AllSearchCriteria and kind is not ModseqCriteria:
            return None
    if not criteria:  # pymap: an empty set matches nothing
        return lambda flags: False
    judged: dict[frozenset[Flag], bool] = {}
    frozen_wanted, frozen_unwanted = frozenset(wanted), frozenset(unwanted)

    def verdict(flags: frozenset[Flag]) -> bool:
        found = judged.get(flags)
        if found is None:
            found = judged[flags] = frozen_wanted <= flags and frozen_unwanted.isdisjoint(flags)
        return found

    return verdict

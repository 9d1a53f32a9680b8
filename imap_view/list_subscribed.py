"""LIST's `SUBSCRIBED` selection and `RECURSIVEMATCH` (RFC 5258 §3.1, §3.5), as Dovecot
2.3 answers them.

A subscribed name that matches a pattern is listed `\\Subscribed`, and `\\NonExistent`
when it is no folder (§3). With RECURSIVEMATCH a name that matches a pattern is also
given `("CHILDINFO" ("SUBSCRIBED"))` when a subscribed name lies below it (§3.5): a
subscribed name whenever one does; any other name only when a subscribed name below it
matches none of the patterns — the subscribed name is listed itself otherwise, and
Dovecot then leaves its parent out (imaptest's listext checks both: `imaptest/test7`,
whose only subscribed child `test7/test7` matches `imaptest*test7`, is not listed; a
parent that is not subscribed never gets `\\Subscribed`). A parent listed only for its
CHILDINFO that is no folder either is `\\NonExistent`.

LSUB (RFC 3501 §6.3.9) lists the same: the subscribed names that match, and a name
that is not subscribed, `\\Noselect`, only where `%` stops short of a subscribed name
below it (`foo` for `foo/bar`); pymap listed every parent of a subscribed name, for `*`
too (`SubscribedListTree`).

The work is one pass over the subscribed names (at most the folders and the names
SUBSCRIBE remembers, core/mailboxes/personal.py) and their parents, each matched
against the patterns in linear time (imap_view/list_patterns.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pymap.listtree import ListEntry

from imap_view.list_patterns import PatternListTree, matches_any

__all__ = ["SubscribedListTree", "SubscribedSelection", "subscribed_selection"]


@dataclass(frozen=True, slots=True)
class SubscribedSelection:
    """What `LIST (SUBSCRIBED …)` selects of the names that match its patterns."""

    matching: frozenset[str]  # subscribed names that match a pattern
    with_children: frozenset[str]  # matching names with CHILDINFO (RECURSIVEMATCH)
    subscribed: frozenset[str]

    def selects(self, name: str) -> bool:
        return name in self.subscribed or name in self.with_children

    def childinfo(self, name: str) -> bool:
        return name in self.with_children


def _parents(name: str, delimiter: str) -> Iterable[str]:
    """`a/b/c`: `a`, `a/b`."""
    at = name.find(delimiter)
    while at > 0:
        yield name[:at]
        at = name.find(delimiter, at + 1)


def subscribed_selection(
    subscribed: Iterable[str],
    ref_name: str,
    patterns: Sequence[str],
    delimiter: str,
    *,
    recursive: bool,
) -> SubscribedSelection:
    names = frozenset(subscribed)
    matched = {name for name in names if matches_any(ref_name, patterns, name, delimiter)}
    with_children: set[str] = set()
    if recursive:
        below_any: set[str] = set()
        below_unmatched: set[str] = set()
        for name in names:
            parents = list(_parents(name, delimiter))
            below_any.update(parents)
            if name not in matched:
                below_unmatched.update(parents)
        with_children = {p for p in below_any & names if p in matched}
        with_children |= {
            p for p in below_unmatched - names if matches_any(ref_name, patterns, p, delimiter)
        }
    return SubscribedSelection(frozenset(matched), frozenset(with_children), names)


class SubscribedListTree(PatternListTree):
    """The subscribed names as pymap's list tree, which LSUB lists (see the module doc)."""

    __slots__: list[str] = []

    def list_matching(self, ref_name: str, filter_: str) -> Iterable[ListEntry]:
        entries = list(self.list())
        subscribed = [entry.name for entry in entries if entry.exists]
        chosen = subscribed_selection(
            subscribed, ref_name, (filter_,), self._separator, recursive=True
        )
        for entry in entries:
            if entry.name in chosen.matching or (
                not entry.exists and entry.name in chosen.with_children
            ):
                yield entry

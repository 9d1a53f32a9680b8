"""LIST and LSUB patterns matched in time linear in the pattern and the name.

pymap 0.36.7's `ListTree.list_matching` turns a pattern into a regular expression
(`*` as `.*?`, `%` as `[^/]*?`), which Python matches by backtracking: a pattern of
a few dozen wildcards and letters (`LIST "" "*a*a*a*a*a*a*a*a*b"`) against a
folder name of many `a` runs in time that grows as the name's length to the power
of the number of wildcards, on the event loop. Here the pattern runs as a set of
positions (a Thompson simulation): at most len(pattern) * len(name) steps a name.

RFC 3501 §6.3.8: `*` matches zero or more characters, `%` the same but not the
hierarchy delimiter; the reference name and the pattern are joined first; INBOX
matches case-insensitively (§5.1), every other name exactly.
"""

from __future__ import annotations

from collections.abc import Iterable

from pymap.listtree import ListEntry, ListTree

__all__ = ["PatternListTree", "matches", "matches_any"]


def _closure(pattern: str, positions: set[int]) -> set[int]:
    """The positions reachable without consuming a character: past any wildcard."""
    reached = set(positions)
    for position in sorted(positions):
        while position < len(pattern) and pattern[position] in "*%":
            position += 1
            reached.add(position)
    return reached


def matches(pattern: str, name: str, delimiter: str) -> bool:
    """Whether `name` matches the LIST `pattern` (RFC 3501 §6.3.8). The patterns clients
    send (`*`, `%`, `Sessions/%`, a name) are a prefix and at most one wildcard at the
    end: a string comparison decides those (mbsync's `LIST "" "*"` over a thousand
    folders ran the position sets a thousand times)."""
    head, last = pattern[:-1], pattern[-1:]
    if "*" not in head and "%" not in head:
        if last == "*":
            return name.startswith(head)
        if last == "%":
            return name.startswith(head) and delimiter not in name[len(head) :]
        return name == pattern
    positions = _closure(pattern, {0})
    for char in name:
        following: set[int] = set()
        for position in positions:
            if position == len(pattern):
                continue
            wanted = pattern[position]
            if wanted == "*" or (wanted == "%" and char != delimiter):
                following.add(position)
            elif wanted == char:
                following.add(position + 1)
        if not following:
            return False
        positions = _closure(pattern, following)
    return len(pattern) in positions


def matches_any(ref_name: str, patterns: Iterable[str], name: str, delimiter: str) -> bool:
    """Whether `name` matches one of LIST's patterns, each joined to the reference name
    (RFC 3501 §6.3.8), as `PatternListTree.list_matching` matches it."""
    for pattern in patterns:
        joined = ref_name + pattern
        if name == "INBOX":
            if matches(joined.upper(), name, delimiter):
                return True
        elif matches(joined, name, delimiter):
            return True
    return False


class PatternListTree(ListTree):
    """pymap's list tree (the names, `\\HasChildren`, `\\Noselect` parents) whose
    `list_matching` uses `matches` instead of a backtracking regular expression."""

    __slots__ = ["_separator"]

    def __init__(self, delimiter: str) -> None:
        super().__init__(delimiter)
        self._separator = delimiter

    def list_matching(self, ref_name: str, filter_: str) -> Iterable[ListEntry]:
        for entry in self.list():
            if matches_any(ref_name, (filter_,), entry.name, self._separator):
                yield entry

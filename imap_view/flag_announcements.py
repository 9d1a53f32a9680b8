"""`* FLAGS` again before a FETCH shows a keyword the session was not told of.

RFC 3501 §7.2.6: the FLAGS response lists the flags applicable to the mailbox, and
a client may ignore a flag it was not told of. SELECT lists the keywords in use
then (imap_view/mailbox.py); a keyword added later — by this session's STORE,
another session's or the web UI's — is announced with `* FLAGS (...)` and
`* OK [PERMANENTFLAGS (...)]` before the first FETCH that carries it, as Dovecot
does (a silent STORE too). The list only grows while the mailbox is selected: a
keyword no message carries any more stays listed, as in Dovecot.

The announcement is made where the selected view's changes are compared
(imap_view/selected.py, IDLE's updates included) and moved, at the end of a
command, ahead of every untagged line of its response (`first`): a FETCH's own
lines come before the view's updates in pymap's response.
"""

from __future__ import annotations

from collections.abc import Iterable

from pymap.parsing.response import CommandResponse, UntaggedResponse
from pymap.parsing.response.code import PermanentFlags
from pymap.parsing.response.specials import FlagsResponse
from pymap.parsing.specials.flag import Flag, Recent, Wildcard

from imap_view.pymap_compat import replace_untagged, untagged

__all__ = ["AnnouncedFlags", "first"]


class _FlagsLine(FlagsResponse):
    """`* FLAGS (...)` sent after SELECT."""


class _PermanentLine(UntaggedResponse):
    """`* OK [PERMANENTFLAGS (...)]` sent after SELECT."""


class AnnouncedFlags:
    """The flags this session was told its selected mailbox has: made at SELECT, and
    shared by the copies of the view that every command makes."""

    __slots__ = ["flags", "pending", "permanent"]

    def __init__(self, flags: Iterable[Flag], permanent: Iterable[Flag]) -> None:
        self.flags = frozenset(flags)
        self.permanent = tuple(permanent)  # as SELECT said it (nothing for EXAMINE)
        self.pending = False  # an announcement was made that `first` has not moved yet

    def news(self, carried: Iterable[frozenset[Flag]]) -> list[UntaggedResponse]:
        """The announcement of the flags in `carried` not told yet, or nothing."""
        new = frozenset[Flag]().union(*carried) - self.flags - {Recent, Wildcard}
        if not new:
            return []
        self.flags |= new
        self.pending = True
        return [
            _FlagsLine(self.flags),
            _PermanentLine(b"Flags permitted.", PermanentFlags(self.permanent), condition=b"OK"),
        ]


def first(response: CommandResponse, announced: AnnouncedFlags | None) -> None:
    """The response's announcement, if `announced` made one during the command, ahead of
    its other untagged lines (most commands announce nothing: their lines are not read).

    pymap's `CommandResponse` keeps, beside its untagged lines, the index of each FETCH
    that a later one merges into; both are rebuilt in the new order."""
    if announced is None or not announced.pending:
        return
    announced.pending = False
    lines = untagged(response)
    ahead = [u for u in lines if isinstance(u, _FlagsLine | _PermanentLine)]
    rest = [u for u in lines if not isinstance(u, _FlagsLine | _PermanentLine)]
    ordered = ahead + rest
    table = {}
    for index, line in enumerate(ordered):
        try:
            key = line.merge_key
        except TypeError:
            continue
        table[(type(line), key)] = index
    replace_untagged(response, ordered, table)

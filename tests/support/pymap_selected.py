"""A selected folder as pymap's command handling sees it, for tests of imap_view's
parts that take one (FETCH lines, flag-only SEARCH)."""

from __future__ import annotations

from pymap.flags import PermanentFlags, SessionFlags
from pymap.parsing.specials import ObjectId
from pymap.parsing.specials.flag import Deleted, Flagged, Seen
from pymap.selected import SelectedMailbox


def selected_mailbox() -> SelectedMailbox:
    """Folder `F1`, read-write, with \\Seen, \\Flagged and \\Deleted permanent."""
    return SelectedMailbox(
        ObjectId(b"F1"),
        False,
        PermanentFlags(frozenset({Seen, Flagged, Deleted})),
        SessionFlags(frozenset()),
    )

"""The selected view's fork (imap_view/selected.py): a command that changed nothing in
the view costs no copy and no comparison, and every change is still told."""

from __future__ import annotations

from pymap.flags import PermanentFlags, SessionFlags
from pymap.parsing.command.any import NoOpCommand
from pymap.parsing.specials import ObjectId
from pymap.parsing.specials.flag import Deleted, Flagged, Seen
from pymap.selected import SelectedMailbox

from imap_view.message import Message
from imap_view.selected import GatewayMessages, GatewaySelected


def _selected() -> GatewaySelected:
    return GatewaySelected(
        ObjectId(b"F1"),
        False,
        PermanentFlags(frozenset({Seen, Flagged, Deleted})),
        SessionFlags(frozenset()),
    )


def test_updates_of_nothing_leave_the_view_as_it_was() -> None:
    """Every UID command of a session with nothing new adds an update of nothing
    (`add_updates((), ())`): the view's generation stays, so the fork copies nothing."""
    selected: SelectedMailbox = _selected()
    selected.set_messages([Message(uid, frozenset(), mail_seq=uid) for uid in range(1, 101)])
    command = NoOpCommand(b"a")
    selected, _ = selected.fork(command)
    messages = selected.messages
    assert isinstance(messages, GatewayMessages)
    generation = messages.generation
    for hide in (False, True):
        selected.hide_expunged = hide
        selected.add_updates((), ())
        assert messages.generation == generation
        selected, updates = selected.fork(command)
        assert list(updates) == []
    selected.add_updates([Message(5, frozenset({Seen}), mail_seq=5)], ())
    assert messages.generation != generation
    selected, updates = selected.fork(command)
    assert [bytes(line) for line in updates] == [b"* 5 FETCH (FLAGS (\\Seen))\r\n"]
    selected.add_updates((), [7])
    selected, updates = selected.fork(command)
    assert [bytes(line) for line in updates] == [b"* 7 EXPUNGE\r\n"]

"""imap_view/message_sets.py names the same messages as pymap's `get_all`, in the same order."""

from __future__ import annotations

from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st
from pymap.flags import PermanentFlags, SessionFlags
from pymap.parsing.specials import ObjectId, SequenceSet
from pymap.parsing.specials.sequenceset import MaxValue
from pymap.selected import SelectedMailbox

from imap_view.contents import Contents
from imap_view.message import Message
from imap_view.message_sets import messages_in

index = st.one_of(st.integers(min_value=1, max_value=40), st.just(MaxValue()))
element = st.one_of(index, st.tuples(index, index))


def mailbox(uids: list[int]) -> SelectedMailbox:
    selected = SelectedMailbox(
        ObjectId(b"F1"), False, PermanentFlags(frozenset()), SessionFlags(frozenset())
    )
    contents = cast(Contents, None)
    selected.set_messages(
        [Message(uid, frozenset(), mail_seq=uid, contents=contents) for uid in uids]
    )
    return selected


@given(
    st.sets(st.integers(min_value=1, max_value=40), max_size=25),
    st.lists(element, min_size=1, max_size=4),
    st.booleans(),
)
def test_the_same_messages_as_pymap(uids: set[int], elements: list[Any], uid: bool) -> None:
    selected = mailbox(sorted(uids))
    sequence_set = SequenceSet(elements, uid=uid)
    expected = [(n, m.uid) for n, m in selected.messages.get_all(sequence_set)]
    assert [(n, m.uid) for n, m in messages_in(selected, sequence_set)] == expected
    everything = SequenceSet.all(uid=uid)
    assert len(messages_in(selected, everything)) == len(uids)

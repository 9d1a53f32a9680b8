"""imap_view/flag_search.py finds what pymap's search criteria find."""

from __future__ import annotations

import itertools

import pytest
from pymap.parsing import Params
from pymap.parsing.command.select import SearchCommand
from pymap.parsing.specials import FetchRequirement
from pymap.parsing.specials.flag import Answered, Deleted, Flag, Flagged, Recent, Seen
from pymap.search import SearchCriteriaSet, SearchParams

from imap_view.condstore_search import GatewayCriteriaSet
from imap_view.flag_search import flag_verdict
from imap_view.message import LoadedMessage, Message
from tests.support.pymap_selected import selected_mailbox

SEARCHES = [
    b"UNSEEN",
    b"SEEN",
    b"FLAGGED UNDELETED",
    b"ALL",
    b"KEYWORD $Label1 UNANSWERED",
    b"UNKEYWORD $Label1",
    b"DELETED SEEN",
    b"OLD",
    b"RECENT UNSEEN",
]


@pytest.mark.parametrize("keys", SEARCHES)
def test_a_flag_search_finds_what_pymaps_criteria_find(keys: bytes) -> None:
    command, _ = SearchCommand.parse(memoryview(b" %b\r\n" % keys), Params(tag=b"a"))
    assert isinstance(command, SearchCommand)
    selected = selected_mailbox()
    params = SearchParams(selected)
    ours = flag_verdict(GatewayCriteriaSet(command.keys, params).all_criteria)
    assert ours is not None
    theirs = SearchCriteriaSet(command.keys, params)
    pool = [Seen, Flagged, Deleted, Answered, Recent, Flag(b"$Label1")]
    for size in range(len(pool) + 1):
        for chosen in itertools.combinations(pool, size):
            flags = frozenset(chosen)
            message = Message(1, flags, mail_seq=1)
            loaded = LoadedMessage(message, FetchRequirement.METADATA, None)
            assert ours(flags) == theirs.matches(1, message, loaded), flags


@pytest.mark.parametrize("keys", [b"1:3 UNSEEN", b"SUBJECT hi", b"NOT SEEN", b"OR SEEN DRAFT"])
def test_other_searches_are_left_to_pymaps_criteria(keys: bytes) -> None:
    command, _ = SearchCommand.parse(memoryview(b" %b\r\n" % keys), Params(tag=b"a"))
    assert isinstance(command, SearchCommand)
    criteria = GatewayCriteriaSet(command.keys, SearchParams(selected_mailbox())).all_criteria
    assert flag_verdict(criteria) is None

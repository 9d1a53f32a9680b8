"""SEARCH's MODSEQ key (RFC 7162 §3.1.5) evaluated wherever a search key may stand.

pymap 0.36.7's `SearchCriteria.of` turns a key into its criterion and knows no
MODSEQ; its NOT, OR and parenthesised criteria call it again for the keys they
hold, so a MODSEQ inside them could not be evaluated. `criteria_of` builds those
composites itself, recursing into itself, and hands every other key to pymap: our
MODSEQ key gets our criterion, pymap's keys pymap's. The keys come from
`ModseqSearchKey` (imap_view/condstore_parsing.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pymap.exceptions import SearchNotAllowed
from pymap.interfaces.message import LoadedMessageInterface, MessageInterface
from pymap.parsing.specials import SearchKey
from pymap.search import SearchCriteria, SearchCriteriaSet, SearchParams

from imap_view.content_search import ADDRESS_KEYS, TEXT_KEYS, AddressCriteria, TextCriteria
from imap_view.extensions import stored_modseq
from imap_view.message import Message
from imap_view.sent_dates import OPERATORS, SentDateCriteria

__all__ = [
    "GatewayCriteriaSet",
    "ModseqCriteria",
    "criteria_of",
    "criteria_within",
    "keys_within",
    "uses_modseq",
]

MODSEQ = b"MODSEQ"


class ModseqCriteria(SearchCriteria):
    """RFC 7162 §3.1.5: a message whose mod-sequence is `at_least` or more (as stored,
    imap_view/extensions.py); `below` (NOT MODSEQ) one whose mod-sequence is lower."""

    def __init__(self, at_least: int, params: SearchParams, *, below: bool = False) -> None:
        super().__init__(params)
        self.at_least = at_least
        self.below = below

    def admits(self, message: MessageInterface) -> bool:
        """Whether the message matches; needs nothing loaded, so a search narrows by it
        before it loads any content."""
        modseq = message.modseq if isinstance(message, Message) else 0
        return (modseq >= self.at_least) != self.below

    def matches(
        self, msg_seq: int, msg: MessageInterface, loaded_msg: LoadedMessageInterface
    ) -> bool:
        return self.admits(msg)


class _Not(SearchCriteria):
    def __init__(self, inner: SearchCriteria, params: SearchParams) -> None:
        super().__init__(params)
        self.inner = inner

    def matches(
        self, msg_seq: int, msg: MessageInterface, loaded_msg: LoadedMessageInterface
    ) -> bool:
        return not self.inner.matches(msg_seq, msg, loaded_msg)


class _Either(SearchCriteria):
    def __init__(self, left: SearchCriteria, right: SearchCriteria, params: SearchParams) -> None:
        super().__init__(params)
        self.left = left
        self.right = right

    def matches(
        self, msg_seq: int, msg: MessageInterface, loaded_msg: LoadedMessageInterface
    ) -> bool:
        return self.left.matches(msg_seq, msg, loaded_msg) or self.right.matches(
            msg_seq, msg, loaded_msg
        )


class GatewayCriteriaSet(SearchCriteriaSet):
    """pymap's set of keys that must all match (the search itself, or a parenthesised
    list), its criteria made by `criteria_of`. pymap's `sequence_set` still finds a
    top-level sequence set, which narrows the candidates."""

    def __init__(self, keys: Iterable[SearchKey], params: SearchParams) -> None:
        SearchCriteria.__init__(self, params)  # not pymap's: its `of` refuses MODSEQ
        self.all_criteria = [criteria_of(key, params) for key in keys]

    @property
    def by_modseq(self) -> list[ModseqCriteria]:
        """The top-level MODSEQ keys: every found message must pass each of them."""
        return [crit for crit in self.all_criteria if isinstance(crit, ModseqCriteria)]


def criteria_of(key: SearchKey, params: SearchParams) -> SearchCriteria:
    """The criterion of one key, as pymap's `SearchCriteria.of`, MODSEQ understood also
    inside NOT, OR and parentheses; FROM, TO, CC, BCC, BODY and TEXT matched as
    Dovecot matches them (imap_view/content_search.py)."""
    name = key.value
    if name in params.disabled:
        raise SearchNotAllowed(key)
    if name == MODSEQ:
        return ModseqCriteria(stored_modseq(key.filter_int), params, below=key.inverse)
    if key.inverse:
        return _Not(criteria_of(key.not_inverse, params), params)
    if name == b"KEYSET":
        return GatewayCriteriaSet(key.filter_key_set, params)
    if name == b"OR":
        left, right = key.filter_key_or
        return _Either(criteria_of(left, params), criteria_of(right, params), params)
    if name in OPERATORS:  # a Date no one can read is the epoch (imap_view/sent_dates.py)
        return SentDateCriteria(key.filter_datetime, OPERATORS[name], params)
    if name in ADDRESS_KEYS:
        return AddressCriteria(name, key.filter_str, params)
    if name in TEXT_KEYS:
        return TextCriteria(name, key.filter_str, params)
    return SearchCriteria.of(key, params)


def criteria_within(criteria: Iterable[SearchCriteria]) -> Iterator[SearchCriteria]:
    """Every criterion of a search, those inside NOT, OR and parentheses too."""
    for criterion in criteria:
        yield criterion
        if isinstance(criterion, _Not):
            yield from criteria_within([criterion.inner])
        elif isinstance(criterion, _Either):
            yield from criteria_within([criterion.left, criterion.right])
        elif isinstance(criterion, GatewayCriteriaSet):
            yield from criteria_within(criterion.all_criteria)


def keys_within(keys: Iterable[SearchKey]) -> Iterator[SearchKey]:
    """Every key of a search, those inside OR and parentheses too (NOT is a flag of
    the key it inverts)."""
    for key in keys:
        yield key
        if key.value == b"KEYSET":
            yield from keys_within(key.filter_key_set)
        elif key.value == b"OR":
            yield from keys_within(key.filter_key_or)


def uses_modseq(keys: Iterable[SearchKey]) -> bool:
    """Whether a MODSEQ key stands anywhere in the search: then the mailbox must keep
    mod-sequences, and the reply carries `(MODSEQ n)` (RFC 7162 §3.1.5)."""
    return any(key.value == MODSEQ for key in keys_within(keys))

"""The selected mailbox's untagged updates with CONDSTORE's MODSEQ and QRESYNC's VANISHED.

pymap's `SelectedMailbox.fork` compares the session's view before and after a
command and writes `EXPUNGE`, `EXISTS` and `FETCH (FLAGS)` lines. Here the same
comparison (pymap 0.36.7's `_compare`, whose fields this reads) writes, for a
session that enabled them (imap_view/extensions.py):

- CONDSTORE: `MODSEQ` in every FETCH it sends unasked, flags changed by another
  session or REST included (RFC 7162 §3.1.4: "once a CONDSTORE enabling command
  is issued, the server MUST include MODSEQ in all subsequent untagged FETCH");
- QRESYNC: one `VANISHED <uids>` instead of an `EXPUNGE` per message (RFC 7162
  §3.2.10: a QRESYNC session never gets EXPUNGE), and `UID` in those FETCHes, so
  the client can match them to its cache without sequence numbers.
A mailbox without mod-sequences (Drafts: NOMODSEQ) never carries MODSEQ.
A keyword the session was not told of is announced first (`* FLAGS`,
imap_view/flag_announcements.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, groupby
from typing import Any

from pymap.interfaces.message import CachedMessage
from pymap.parsing.command import Command
from pymap.parsing.response import ResponseBye, UntaggedResponse
from pymap.parsing.response.specials import (
    ExistsResponse,
    ExpungeResponse,
    RecentResponse,
)
from pymap.parsing.specials import FetchValue, SequenceSet
from pymap.selected import SelectedMailbox, SynchronizedMessages, _Frozen

from imap_view.extensions import Extensions, wire_modseq
from imap_view.flag_announcements import AnnouncedFlags
from imap_view.freshness import Stamp
from imap_view.pymap_compat import message_by_uid, uid_set
from imap_view.ready_fetch import (
    FixedAttribute,
    ReadyFetch,
    ReadyValue,
    flags_value,
    uid_value,
)

__all__ = ["GatewayMessages", "GatewaySelected", "VanishedResponse", "modseq_value"]

MODSEQ = FixedAttribute(b"MODSEQ")
_NO_KWARGS: dict[str, Any] = {}  # `_kwargs`, which pymap keeps and never reads


class VanishedResponse(UntaggedResponse):
    """RFC 7162 §3.2.10: `* VANISHED [(EARLIER)] <uid set>`."""

    def __init__(self, uids: Iterable[int] | SequenceSet, *, earlier: bool = False) -> None:
        super().__init__()
        self.uids = uids if isinstance(uids, SequenceSet) else SequenceSet.build(uids, uid=True)
        self.earlier = earlier

    @property
    def text(self) -> bytes:
        earlier = b" (EARLIER)" if self.earlier else b""
        return super().text + b"VANISHED" + earlier + b" " + bytes(self.uids)


def modseq_value(stored: int) -> FetchValue:
    """RFC 7162 §3.1.4.1: `MODSEQ (<value>)`."""
    return ReadyValue(MODSEQ, b"MODSEQ (%d)" % wire_modseq(stored))


class GatewayMessages(SynchronizedMessages):
    """pymap's synchronized messages, counting their changes (`generation`), so that a
    fork can tell in O(1) that the view it would copy is the one it copied last. An
    update of nothing changes nothing (every UID command of a session with nothing
    new adds none: the fork then copied and compared the whole view)."""

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0

    def _update(self, messages: Iterable[CachedMessage]) -> None:
        messages = list(messages)
        if messages:
            self.generation += 1
            super()._update(messages)

    def _remove(self, uids: Iterable[int], pending: bool) -> None:
        uids = list(uids)
        held = len(uid_set(self))
        super()._remove(uids, pending)
        if (pending and uids) or len(uid_set(self)) != held:
            self.generation += 1


def _frozen(selected: SelectedMailbox) -> _Frozen:
    """pymap's `_Frozen(selected)`, sharing the previous copies when the messages have
    the generation they had then (copies are never changed, so sharing is safe), and
    the previous copy itself when nothing else in it changed either: a fork then knows
    by `is` that there is nothing to tell (`GatewaySelected.fork`)."""
    messages = selected._messages
    generation = getattr(messages, "generation", None)
    previous = selected._prev
    if generation is None or previous is None or getattr(previous, "generation", -1) != generation:
        frozen = _Frozen(selected)
        frozen.generation = generation  # type: ignore[attr-defined]
        return frozen
    session_flags = selected.session_flags
    recent = session_flags.recent_uids & previous.uids
    sflags = frozenset(session_flags.flags.items())
    if (
        previous.is_deleted == selected._is_deleted
        and previous.recent == recent
        and previous.sflags == sflags
    ):
        return previous
    frozen = _Frozen.__new__(_Frozen)
    frozen.is_deleted = selected._is_deleted
    frozen.uids = previous.uids
    frozen.seqs_cache = previous.seqs_cache
    frozen.flags = previous.flags
    frozen.recent = recent
    frozen.sflags = sflags
    frozen.generation = generation  # type: ignore[attr-defined]
    return frozen


class GatewaySelected(SelectedMailbox):
    __slots__ = ["announced", "extensions", "fresh", "has_modseq"]

    def __init__(
        self,
        *args: Any,
        extensions: Extensions | None = None,
        has_modseq: bool = True,
        **kwargs: Any,
    ) -> None:
        if "_messages" not in kwargs:  # a fork passes the view's own (no new one per command)
            kwargs["_messages"] = GatewayMessages()
        super().__init__(*args, **kwargs)
        self.extensions = extensions if extensions is not None else Extensions()
        self.has_modseq = has_modseq
        # When the view was last brought up to date (imap_view/freshness.py): while
        # that holds, a command needs no store read to know nothing changed.
        self.fresh: Stamp | None = None
        # The flags SELECT listed and those announced since (imap_view/condstore.py sets it).
        self.announced: AnnouncedFlags | None = None

    @property
    def condstore(self) -> bool:
        """Whether FETCH responses carry MODSEQ in this session and mailbox."""
        return self.extensions.condstore and self.has_modseq

    def fork(self, command: Command) -> tuple[SelectedMailbox, Iterable[UntaggedResponse]]:
        """pymap 0.36.7's `SelectedMailbox.fork`, which copies the view's UIDs, positions
        and flags after every command to compare them after the next: O(messages) for
        a NOOP. Here the copies of a view whose messages did not change since the last
        fork are the last ones again (`GatewayMessages.generation`), and a view in which
        nothing changed is not compared at all."""
        frozen = _frozen(self)
        copy = self._clone(frozen)
        previous = self._prev
        if previous is None or previous is frozen:  # nothing changed (`_frozen`)
            return copy, ()
        with_uid: bool = getattr(command, "uid", False)
        return copy, list(self._compare(previous, frozen, with_uid))  # made now

    def _clone(self, frozen: _Frozen) -> GatewaySelected:
        """The view after a command, as pymap's `SelectedMailbox.__init__` would make it
        (the same fields, the flags silenced by this command not carried over), set
        directly: no keyword dictionary, and no entry in the folder's `SelectedSet`.
        That weak set serves pymap's `_pick_selected` (\\Recent for another session's
        APPEND), which only ever asks a folder object it has just made
        (imap_view/mailbox_set.py makes one per lookup), so nothing reads the entries
        of a session's own folder object; a fork per command paid a `WeakSet.add` for it.
        """
        copy = object.__new__(type(self))
        copy._mailbox_id = self._mailbox_id
        copy._readonly = self._readonly
        copy._permanent_flags = self._permanent_flags
        copy._session_flags = self._session_flags
        copy._selected_set = self._selected_set
        copy._kwargs = _NO_KWARGS
        copy._lookup = self._lookup
        copy._mod_sequence = self._mod_sequence
        copy._is_deleted = False
        copy._hide_expunged = False
        copy._silenced_flags = set()
        copy._silenced_sflags = set()
        copy._prev = frozen
        copy._messages = self._messages
        copy.extensions = self.extensions
        copy.has_modseq = self.has_modseq
        copy.fresh = self.fresh
        copy.announced = self.announced
        return copy

    def _compare(
        self, before: _Frozen, after: _Frozen, with_uid: bool
    ) -> Iterable[UntaggedResponse]:
        """pymap 0.36.7's `SelectedMailbox._compare`, with VANISHED and MODSEQ as the
        module doc says. `* n RECENT` follows EXISTS when the session's count of
        `\\Recent` messages changed (RFC 3501 §7.3.2; imap_view/recent.py), with no
        FETCH of the new ones' flags: Dovecot sends none either."""
        if after.is_deleted:
            yield ResponseBye(b"Selected mailbox no longer exists.")
            return
        cache = message_by_uid(self._messages)
        session_flags = self._session_flags
        same = before.uids is after.uids  # the messages did not change (`_frozen`)
        expunged = set() if same else before.uids - after.uids
        if not self._hide_expunged and expunged:
            if self.extensions.qresync:
                yield VanishedResponse(expunged)
            else:
                for uid in sorted(expunged, reverse=True):
                    yield ExpungeResponse(before.seqs_cache[uid])
        if not same and after.uids - before.uids:
            yield ExistsResponse(len(after.uids))
        if len(after.recent) != len(before.recent):
            yield RecentResponse(len(after.recent))
        changed_flags = set() if same else after.flags - before.flags
        if self.announced is not None:  # silenced ones too: a STORE.SILENT's keyword is news
            yield from self.announced.news(flags for _, flags in changed_flags)
        new_flags = changed_flags - self._silenced_flags
        new_sflags = after.sflags - before.sflags - self._silenced_sflags
        changed = chain((uid for uid, _ in new_flags), (uid for uid, _ in new_sflags))
        with_uid = with_uid or self.extensions.qresync
        for uid, _ in groupby(sorted(changed)):
            message = cache[uid]
            data: list[FetchValue] = [flags_value(message.get_flags(session_flags))]
            if with_uid:
                data.append(uid_value(uid))
            if self.condstore:
                data.append(modseq_value(getattr(message, "modseq", 0)))
            yield ReadyFetch(after.seqs_cache[uid], data)

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
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, groupby
from typing import Any

from pymap.parsing.command import Command
from pymap.parsing.primitives import List, Number
from pymap.parsing.response import ResponseBye, UntaggedResponse
from pymap.parsing.response.specials import ExistsResponse, ExpungeResponse, FetchResponse
from pymap.parsing.specials import FetchAttribute, FetchValue, SequenceSet
from pymap.selected import SelectedMailbox, _Frozen

from imap_view.extensions import Extensions, wire_modseq

__all__ = ["GatewaySelected", "VanishedResponse", "modseq_value"]

_FLAGS = FetchAttribute(b"FLAGS")
_UID = FetchAttribute(b"UID")
MODSEQ = FetchAttribute(b"MODSEQ")


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
    return FetchValue.of(MODSEQ, List([Number(wire_modseq(stored))]))


class GatewaySelected(SelectedMailbox):
    __slots__ = ["extensions", "has_modseq"]

    def __init__(
        self,
        *args: Any,
        extensions: Extensions | None = None,
        has_modseq: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.extensions = extensions if extensions is not None else Extensions()
        self.has_modseq = has_modseq

    @property
    def condstore(self) -> bool:
        """Whether FETCH responses carry MODSEQ in this session and mailbox."""
        return self.extensions.condstore and self.has_modseq

    def fork(self, command: Command) -> tuple[SelectedMailbox, Iterable[UntaggedResponse]]:
        copy, untagged = super().fork(command)
        assert isinstance(copy, GatewaySelected)
        copy.extensions = self.extensions
        copy.has_modseq = self.has_modseq
        return copy, list(untagged)  # made now, while this view's fields are what it compared

    def _compare(
        self, before: _Frozen, after: _Frozen, with_uid: bool
    ) -> Iterable[UntaggedResponse]:
        """pymap 0.36.7's `SelectedMailbox._compare` (\\Recent left out: not kept here),
        with VANISHED and MODSEQ as the module doc says."""
        if after.is_deleted:
            yield ResponseBye(b"Selected mailbox no longer exists.")
            return
        cache = self._messages._cache
        session_flags = self._session_flags
        expunged = before.uids - after.uids
        if not self._hide_expunged and expunged:
            if self.extensions.qresync:
                yield VanishedResponse(expunged)
            else:
                for uid in sorted(expunged, reverse=True):
                    yield ExpungeResponse(before.seqs_cache[uid])
        if after.uids - before.uids:
            yield ExistsResponse(len(after.uids))
        new_flags = after.flags - before.flags - self._silenced_flags
        new_sflags = after.sflags - before.sflags - self._silenced_sflags
        changed = chain((uid for uid, _ in new_flags), (uid for uid, _ in new_sflags))
        with_uid = with_uid or self.extensions.qresync
        for uid, _ in groupby(sorted(changed)):
            message = cache[uid]
            data = [FetchValue.of(_FLAGS, List(message.get_flags(session_flags), sort=True))]
            if with_uid:
                data.append(FetchValue.of(_UID, Number(uid)))
            if self.condstore:
                data.append(modseq_value(getattr(message, "modseq", 0)))
            yield FetchResponse(after.seqs_cache[uid], data)

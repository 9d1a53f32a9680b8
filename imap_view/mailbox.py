"""One of the human's folders as a pymap mailbox: its state read from the store.

The folder set and the folders' names are in imap_view/mailbox_set.py.

SELECT reads the folder's UIDs and `\\Seen` once; every later command reads only
what changed since the mod-sequence the session last saw (core/mailboxes/contents.py
`folder_changes`: one small query when nothing did) and hands it to pymap's
`SelectedMailbox.add_updates`, which works out the EXISTS/EXPUNGE/FETCH replies.
Drafts are not mails and carry no mod-sequences: that small folder is re-read whole.
The messages a session sees for the first time may be `\\Recent` to it
(imap_view/recent.py).

Flags: `\\Seen`, `\\Flagged`, `\\Answered`, `\\Deleted`, `\\Draft` and keywords are kept per
recipient (PERMANENTFLAGS, with `\\*`: RFC 3501 §7.1 lets a client make keywords),
so a `\\Deleted` one session set is expunged by another. Drafts keep no flags:
every draft is `\\Seen \\Draft`, and `\\Deleted` there lasts the session, until its
EXPUNGE deletes the draft. FLAGS (RFC 3501 §7.2.6) lists what the folder's messages
can carry: the flags, and the keywords the owner uses.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable, Sequence

from pymap.backend.mailbox import MailboxDataInterface
from pymap.concurrent import Event
from pymap.exceptions import NotAllowedError
from pymap.flags import FlagOp
from pymap.interfaces.message import CachedMessage
from pymap.mailbox import MailboxSnapshot
from pymap.parsing.message import AppendMessage
from pymap.parsing.specials import ObjectId, SequenceSet
from pymap.parsing.specials.flag import (
    Answered,
    Deleted,
    Draft,
    Flag,
    Flagged,
    Recent,
    Seen,
    Wildcard,
)
from pymap.selected import SelectedMailbox, SelectedSet

from core.mailboxes.contents import (
    FolderChanges,
    FolderMessage,
    FolderState,
    folder_message,
    read_changes,
)
from core.mailboxes.folders import FolderInfo, folder_counts
from core.mailboxes.uids import DRAFTS
from core.store.engine import Transaction
from imap_view.backend import Backend
from imap_view.copied_out import CopiedOut
from imap_view.freshness import Freshness, Stamp
from imap_view.message import Message
from imap_view.pymap_compat import uid_set
from imap_view.recent import take_recent, uids_above
from imap_view.selected import GatewaySelected
from imap_view.selection_base import SelectionBase, fill_from, make_base

__all__ = ["MailboxData", "folder_id_of", "mailbox_id"]

KEPT_FLAGS = frozenset({Seen, Flagged, Answered, Deleted, Draft})
PERMANENT_FLAGS = KEPT_FLAGS | {Wildcard}
DRAFT_FLAGS = frozenset({Seen, Draft})
DRAFT_SESSION_FLAGS = frozenset({Deleted})  # until this session's EXPUNGE deletes the draft
NO_FLAGS: frozenset[Flag] = frozenset()
_ORDER = (Seen, Flagged, Answered, Deleted, Draft)
# Every combination of the kept flags, made once: SELECT builds 100,000 messages.
_FLAG_SETS = {
    bits: frozenset(flag for flag, on in zip(_ORDER, bits, strict=True) if on)
    for bits in itertools.product((False, True), repeat=len(_ORDER))
}
# Flag sets with keywords, made once per process (every command that reads a change
# makes the changed messages): bounded, started again past the limit.
_WITH_KEYWORDS: dict[tuple[frozenset[Flag], tuple[str, ...]], frozenset[Flag]] = {}
_WITH_KEYWORDS_MAX = 4096


class _Snapshot(MailboxSnapshot):
    """FLAGS lists what the messages can carry (RFC 3501 §7.2.6): not `\\*`, and not
    `\\Recent`, which no client sets (Dovecot lists neither); the keywords in use."""

    __slots__ = ["highest_modseq", "keywords"]

    def __init__(
        self, *args: object, keywords: tuple[str, ...] = (), highest_modseq: int | None = None
    ) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.keywords = keywords
        self.highest_modseq = highest_modseq  # None: no mod-sequences (RFC 7162 NOMODSEQ)

    @property
    def flags(self) -> frozenset[Flag]:
        defined = (self.permanent_flags | self.session_flags) - {Wildcard, Recent}
        if Draft not in defined and Wildcard not in self.permanent_flags:
            defined |= DRAFT_FLAGS  # Drafts: nothing permanent, yet every draft has these
        return defined | {Flag(keyword.encode()) for keyword in self.keywords}


def made_messages(messages: Sequence[FolderMessage]) -> list[Message]:
    """The messages of a folder that keeps flags (not Drafts), unbound."""
    sets = _FLAG_SETS
    with_keywords = _WITH_KEYWORDS
    if len(with_keywords) > _WITH_KEYWORDS_MAX:
        with_keywords.clear()
    made = []
    for uid, seq, seen, flagged, answered, deleted, draft, keywords, modseq in messages:
        flags = sets[seen, flagged, answered, deleted, draft]
        if keywords:
            key = (flags, keywords)
            shared = with_keywords.get(key)
            if shared is None:
                shared = with_keywords[key] = flags | {Flag(k.encode()) for k in keywords}
            flags = shared
        made.append(Message(uid, flags, mail_seq=seq, modseq=modseq))
    return made


StampedChanges = tuple[Stamp, FolderChanges]  # a changes read and when it began


def _mark_fresh(selected: SelectedMailbox, stamp: Stamp) -> None:
    if isinstance(selected, GatewaySelected):
        selected.fresh = stamp


def mailbox_id(folder_id: int) -> ObjectId:
    return ObjectId(b"F%d" % folder_id)


def folder_id_of(object_id: ObjectId) -> int:
    return int(object_id.value[1:])


class MailboxData(MailboxDataInterface[Message]):
    """pymap's MailboxDataInterface for one folder."""

    def __init__(
        self,
        folder: FolderInfo,
        owner: str,
        backend: Backend,
        freshness: Freshness,
    ) -> None:
        self.folder = folder
        self.owner = owner
        self._backend = backend
        self._freshness = freshness
        self._wakes = freshness.wakes
        self._selected_set = SelectedSet()
        self.next_uid = 0  # UIDNEXT as SELECT read it
        self.copied_out = CopiedOut()  # kept in this session's view until its EXPUNGE

    @property
    def mailbox_id(self) -> ObjectId:
        return mailbox_id(self.folder.id)

    @property
    def readonly(self) -> bool:
        return False  # \Seen can be changed everywhere

    @property
    def uid_validity(self) -> int:
        return self.folder.uid_validity

    @property
    def permanent_flags(self) -> frozenset[Flag]:
        return NO_FLAGS if self.folder.key == DRAFTS else PERMANENT_FLAGS

    @property
    def session_flags(self) -> frozenset[Flag]:
        return DRAFT_SESSION_FLAGS if self.folder.key == DRAFTS else NO_FLAGS

    @property
    def selected_set(self) -> SelectedSet:
        return self._selected_set

    async def state(self) -> FolderState:
        """The folder now: a kept state and what changed since (core/mailboxes/snapshots.py)."""
        return await self._backend.snapshots.state(self._backend.store, self.owner, self.folder)

    def messages_of(self, messages: Sequence[FolderMessage]) -> list[Message]:
        """Messages bound to no session (imap_view/message.py): they may be shared."""
        if self.folder.key == DRAFTS:
            return [Message(m.uid, DRAFT_FLAGS, mail_seq=m.mail_seq) for m in messages]
        return made_messages(messages)

    async def select(self, selected: SelectedMailbox) -> MailboxSnapshot:
        """SELECT/EXAMINE: the whole folder read once, for the session and its counts."""
        self._wakes.clear()
        self.copied_out.forget()
        stamp = self._freshness.stamp()
        state = await self.state()
        base = await self._base(state.messages)
        fill_from(selected, base)
        selected.mod_sequence = state.highest_modseq
        _mark_fresh(selected, stamp)
        self.next_uid = state.next_uid
        arrived = uids_above(state.messages, state.recent_uid)
        await self._take_recent(selected, arrived, state.recent_uid)
        return _Snapshot(
            self.mailbox_id,
            self.readonly,
            self.uid_validity,
            self.permanent_flags,
            self.session_flags,
            len(state.messages),
            selected.session_flags.recent,
            base.unseen,
            base.first_unseen,
            state.next_uid,
            keywords=state.keywords,
            highest_modseq=self._highest(state.highest_modseq),
        )

    async def _base(self, messages: Sequence[FolderMessage]) -> SelectionBase:
        """The view of this folder state that every session shares (imap_view/selection_base.py);
        made in a worker thread when no session made it yet. Drafts are read anew each time."""
        if self.folder.key == DRAFTS:
            return make_base(messages, self.messages_of)  # a few drafts
        bases = self._backend.selections
        base = bases.get(self.folder.id, messages)
        if base is None:
            base = await asyncio.to_thread(make_base, messages, self.messages_of)
            bases.put(self.folder.id, base)
        return base

    async def update_selected(
        self, selected: SelectedMailbox, *, wait_on: Event | None = None
    ) -> SelectedMailbox:
        """Only what changed since the session's mod-sequence (see the module doc), and
        nothing at all while no commit can have changed the folder (imap_view/freshness.py)."""
        if wait_on is not None:
            await self._wait(wait_on)
        if self.is_fresh(selected):
            if not selected.hide_expunged:  # what a FETCH, STORE or SEARCH held back
                selected.add_updates((), ())  # (RFC 3501 §7.4.1) is told now
            return selected
        shared = self.shared_changes(selected)
        if shared is not None:  # read by another session of the owner's
            return await self.apply_changes(selected, shared)
        read = self.changes_reader(selected)
        if read is None:  # Drafts, or not selected through `select`
            self._wakes.clear()
            stamp = self._freshness.stamp()
            state = await self.state()
            known = uid_set(selected.messages)
            arrived = [m.uid for m in state.messages if m.uid not in known]
            selected.set_messages(self.messages_of(state.messages))
            selected.mod_sequence = state.highest_modseq
            _mark_fresh(selected, stamp)
            await self._take_recent(selected, arrived, state.recent_uid)
            return selected
        return await self.apply_changes(selected, await self._backend.store.read(read))

    def is_fresh(self, selected: SelectedMailbox) -> bool:
        return isinstance(selected, GatewaySelected) and self._freshness.holds(selected.fresh)

    def shared_changes(self, selected: SelectedMailbox) -> StampedChanges | None:
        """What changed since the session's mod-sequence as another session of the
        owner's read it, while that read holds (imap_view/shared_reads.py); None where
        the session reads itself."""
        known = selected.mod_sequence
        if not isinstance(known, int) or self.folder.key == DRAFTS or self.is_fresh(selected):
            return None
        found = self._backend.shared_reads.changes(self.folder.id, known, self._freshness)
        if found is not None:
            self._wakes.clear()  # no wake since the read began (it holds): none is lost
        return found

    def changes_reader(self, selected: SelectedMailbox) -> Transaction[StampedChanges] | None:
        """The read of what changed since the session's mod-sequence, to run in a
        store read (a FETCH runs it with its content keys: one read per command);
        None where the folder is read whole (Drafts) or nothing can have changed."""
        known = selected.mod_sequence
        if not isinstance(known, int) or self.folder.key == DRAFTS or self.is_fresh(selected):
            return None
        # Cleared before reading: a commit after this read wakes the next wait.
        self._wakes.clear()
        stamp = self._freshness.stamp()
        owner, folder = self.owner, self.folder
        return lambda session: (stamp, read_changes(session, owner, folder, known))

    async def apply_changes(
        self, selected: SelectedMailbox, read: StampedChanges
    ) -> SelectedMailbox:
        stamp, changes = read
        known = selected.mod_sequence  # what the changes were read after
        if isinstance(known, int):
            self._backend.shared_reads.offer(self.folder.id, known, stamp, changes)
        if changes.gone:  # deleted by another session: pymap says `* BYE` (as Dovecot)
            selected.set_deleted()
            return selected
        known = uid_set(selected.messages)
        arrived = [m.uid for m in changes.changed if m.uid not in known]
        if changes.whole:  # the expunge records were pruned meanwhile: compare it all
            messages = self.messages_of(changes.changed)
            gone = uid_set(selected.messages).difference(m.uid for m in messages)
            present = (m.uid for m in messages)
            selected.add_updates(messages, self.copied_out.withhold(gone, present))
            selected.mod_sequence = changes.highest_modseq
        elif changes.highest_modseq != selected.mod_sequence:
            messages = self.messages_of(changes.changed)
            expunged = self.copied_out.withhold(changes.expunged, (m.uid for m in messages))
            selected.add_updates(messages, expunged)
            selected.mod_sequence = changes.highest_modseq
        _mark_fresh(selected, stamp)
        await self._take_recent(selected, arrived, changes.recent_uid)
        return selected

    async def _take_recent(
        self, selected: SelectedMailbox, arrived: list[int], recent_uid: int
    ) -> None:
        if arrived:  # imap_view/recent.py
            folder = (self.owner, self.folder.id)
            store, freshness = self._backend.store, self._freshness
            await take_recent(store, freshness, folder, selected, arrived, recent_uid)

    async def _wait(self, done: Event) -> None:
        """IDLE: until the client ends it or the bus says this human has news."""
        waiters = [asyncio.ensure_future(done.wait()), asyncio.ensure_future(self._wakes.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    async def snapshot(self) -> MailboxSnapshot:
        """STATUS and SELECT: counted in the database, no row per message; again only
        once something was committed for the owner (imap_view/freshness.py)."""
        store, owner, folder = self._backend.store, self.owner, self.folder
        counts = await self._freshness.read(
            ("counts", folder), lambda: folder_counts(store, owner, folder)
        )
        return _Snapshot(
            self.mailbox_id,
            self.readonly,
            self.uid_validity,
            self.permanent_flags,
            self.session_flags,
            counts.exists,
            counts.recent,
            counts.unseen,
            counts.first_unseen,
            counts.next_uid,
            highest_modseq=self._highest(counts.highest_modseq),
        )

    @property
    def has_modseq(self) -> bool:
        """Drafts are not mails and keep no mod-sequences (RFC 7162 §3.1.2.2 NOMODSEQ)."""
        return self.folder.key != DRAFTS

    def _highest(self, stored: int) -> int | None:
        return stored if self.has_modseq else None

    async def get(self, uid: int, cached_msg: CachedMessage) -> Message:
        found = await folder_message(self._backend.store, self.owner, self.folder, uid)
        if found is not None:
            return self.messages_of([found])[0]
        if not isinstance(cached_msg, Message):
            raise TypeError(cached_msg)
        return cached_msg.as_expunged()

    async def append(self, append_msg: AppendMessage, *, recent: bool = False) -> Message:
        raise NotImplementedError("APPEND stores every message at once: Session.append_messages")

    async def copy(self, uid: int, destination: MailboxData, *, recent: bool = False) -> int | None:
        raise NotAllowedError("COPY is not supported yet")

    async def move(self, uid: int, destination: MailboxData, *, recent: bool = False) -> int | None:
        raise NotAllowedError("MOVE is not supported yet")

    async def update(
        self, uid: int, cached_msg: CachedMessage, flag_set: frozenset[Flag], mode: FlagOp
    ) -> Message:
        raise NotImplementedError("flags are changed for many messages at once by Session")

    async def delete(self, uids: Iterable[int]) -> None:
        raise NotImplementedError("EXPUNGE works on the whole set in Session.expunge_mailbox")

    async def claim_recent(self, selected: SelectedMailbox) -> None:
        pass  # `select` and `update_selected` claim (imap_view/recent.py)

    async def cleanup(self) -> None:
        pass

    async def find_deleted(self, seq_set: SequenceSet, selected: SelectedMailbox) -> list[int]:
        """The messages marked `\\Deleted` (RFC 3501 §6.4.3), by any session (kept) or,
        in Drafts, by this one."""
        flags = selected.session_flags
        return [
            message.uid
            for _, message in selected.messages.get_all(seq_set)
            if Deleted in message.get_flags(flags)
        ]

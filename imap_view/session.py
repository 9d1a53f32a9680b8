"""One logged-in IMAP session: pymap's BaseSession with set queries where it loops.

pymap's BaseSession fetches, searches and stores one message at a time (one
backend call each). Here FETCH loads every requested message's content with one
batch (imap_view/message.py), STORE changes each kept flag for the whole set in
one statement, and SEARCH loads content once for all candidates. The writes
(STORE, EXPUNGE, COPY, MOVE) are in imap_view/writes.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from functools import partial

from pymap.backend.session import BaseSession
from pymap.context import current_command
from pymap.exceptions import MailboxNotFound, MailboxReadOnly, NotAllowedError
from pymap.flags import FlagOp, PermanentFlags, SessionFlags
from pymap.mailbox import MailboxSnapshot
from pymap.parsing.command.select import CloseCommand, FetchCommand
from pymap.parsing.message import AppendMessage
from pymap.parsing.response.code import AppendUid, CopyUid
from pymap.parsing.specials import FetchRequirement, SearchKey, SequenceSet
from pymap.parsing.specials.flag import Flag, Seen
from pymap.search import SearchParams
from pymap.selected import SelectedMailbox

from core.mailboxes.expunged import expunged_since
from core.store.bus import Subscription
from imap_view.append import appended_uids
from imap_view.backend import Backend
from imap_view.condstore_search import GatewayCriteriaSet, criteria_within, keys_within
from imap_view.config import GatewayImapConfig
from imap_view.content_search import ContentCriteria, judge
from imap_view.contents import Contents
from imap_view.decoders import unknown_encoding
from imap_view.extensions import Extensions
from imap_view.fetch_lines import plan_of
from imap_view.flag_search import flag_verdict
from imap_view.freshness import Freshness
from imap_view.mailbox import MailboxData
from imap_view.mailbox_set import SPECIAL_USE, MailboxSet
from imap_view.message import LoadedMessage, Message
from imap_view.message_sets import following, messages_in
from imap_view.replies import DomainRefusal
from imap_view.selected import GatewaySelected
from imap_view.sort_loading import sortables
from imap_view.sort_order import Sortable
from imap_view.writes import expunge, mark_seen, store_flags, transfer, unmark_copied

__all__ = ["Session"]

ListResult = Iterable[tuple[str, str | None, Sequence[bytes]]]


class Session(BaseSession[Message]):
    def __init__(self, owner: str, backend: Backend, wakes: Subscription) -> None:
        super().__init__(owner)
        self._backend = backend
        freshness = Freshness(wakes)
        self._contents = Contents(backend, owner, freshness)
        self._selected: MailboxData | None = None
        self._mailbox_set = MailboxSet(owner, backend, freshness)
        self.extensions = Extensions()

    def enable(self, names: list[bytes]) -> list[bytes]:
        """ENABLE (RFC 5161): what this command switched on (imap_view/extensions.py)."""
        enabled = self.extensions.enable(names)
        self._contents.utf8_accept = self.extensions.utf8_accept  # RFC 6855 §3: ENVELOPE
        return enabled

    @property
    def config(self) -> GatewayImapConfig:
        return self._backend.config

    @property
    def mailbox_set(self) -> MailboxSet:
        return self._mailbox_set

    async def cleanup(self) -> None:
        self._contents.release()

    async def expunged_since(self, selected: SelectedMailbox, modseq: int) -> list[int] | None:
        """The UIDs that left the selected folder after a stored mod-sequence (QRESYNC's
        VANISHED); None if those records were pruned (core/mailboxes/expunged.py)."""
        folder_id = (await self._get_selected(selected)).folder.id
        return await self._backend.store.read(
            lambda session: expunged_since(session, folder_id, modseq)
        )

    def next_uid(self, selected: SelectedMailbox) -> int:
        """The selected folder's UIDNEXT as its SELECT saw it (0 if unknown)."""
        kept = self._selected
        return kept.next_uid if kept is not None and kept.mailbox_id == selected.mailbox_id else 0

    async def _get_selected(self, selected: SelectedMailbox) -> MailboxData:
        """By folder id, not name: a conversation folder keeps working through a rename.

        Read once per selection: what a command needs of it (id, key, UIDVALIDITY)
        never changes, and its contents are read by mod-sequence.
        """
        kept = self._selected
        if kept is not None and kept.mailbox_id == selected.mailbox_id:
            return kept
        try:
            self._selected = await self._mailbox_set.get_by_id(selected.mailbox_id)
            return self._selected
        except KeyError as exc:
            raise MailboxNotFound(str(selected.lookup)) from exc

    async def select_mailbox(
        self, name: str, readonly: bool = False
    ) -> tuple[MailboxSnapshot, SelectedMailbox]:
        """pymap's SELECT reads the counts and then the messages; here one read serves both."""
        mailbox = await self._get_mailbox(name)
        assert isinstance(mailbox, MailboxData)
        selected = GatewaySelected(
            mailbox.mailbox_id,
            readonly or mailbox.readonly,
            PermanentFlags(mailbox.permanent_flags),
            SessionFlags(mailbox.session_flags),
            selected_set=mailbox.selected_set,
            lookup=name,
            extensions=self.extensions,
            has_modseq=mailbox.has_modseq,
        )
        self._selected = mailbox
        return await mailbox.select(selected), selected

    async def subscribed_names(self) -> set[str]:
        """The names LSUB lists (imap_view/mailbox_set.py)."""
        return await self._mailbox_set.subscribed_names()

    async def list_mailboxes(
        self,
        ref_name: str,
        filter_: str,
        subscribed: bool = False,
        selected: SelectedMailbox | None = None,
    ) -> tuple[ListResult, SelectedMailbox | None]:
        """RFC 6154: `\\Sent`, `\\Drafts`, `\\Archive`, `\\Trash` in every LIST reply."""
        listed, updates = await super().list_mailboxes(ref_name, filter_, subscribed, selected)
        marked = [
            (name, delimiter, [*attributes, *_special_use(name)])
            for name, delimiter, attributes in listed
        ]
        return marked, updates

    async def fetch_messages(
        self,
        selected: SelectedMailbox,
        sequence_set: SequenceSet,
        set_seen_flag: bool,
        *,
        changed_since: int | None = None,
    ) -> tuple[Iterable[tuple[int, Message]], SelectedMailbox]:
        """With `changed_since` (a stored mod-sequence: RFC 7162 §3.1.4.2 CHANGEDSINCE),
        only the messages of the set that changed after it."""
        mailbox = await self._get_selected(selected)
        if changed_since is not None:
            selected = await mailbox.update_selected(selected)
        wanted = _messages(selected, sequence_set)
        if changed_since is not None:
            wanted = [(n, m) for n, m in wanted if m.modseq > changed_since]
        if set_seen_flag:  # BODY[] without PEEK (RFC 3501 §6.4.5)
            unseen = [m.mail_seq for _, m in wanted if Seen not in m.permanent_flags]
            await mark_seen(self._backend.store, self.owner, unseen)
        command = current_command.get(None)
        if isinstance(command, FetchCommand):
            if any(a.value == b"INTERNALDATE" for a in command.attributes):
                await self._contents.load_dates(m.mail_seq for _, m in wanted)
            requirement = FetchRequirement.reduce(a.requirement for a in command.attributes)
            if not requirement.has_none(FetchRequirement.CONTENT):
                plan = plan_of(command.attributes)  # made once per FETCH items
                seqs = (m.mail_seq for _, m in wanted)
                shared = mailbox.shared_changes(selected)  # another session read them
                # Else read with the keys: one read.
                reader = mailbox.changes_reader(selected) if shared is None else None
                ahead = partial(_following_seqs, selected, wanted)
                if plan.kept:  # a listing
                    changes = await self._contents.load_kept(
                        seqs, alongside=reader, following=ahead
                    )
                else:
                    changes = await self._contents.load(
                        seqs,
                        bytes_only=plan.whole,
                        alongside=reader,
                        following=ahead,
                    )
                    await self._check_binary(command, wanted)
                if shared is not None:
                    changes = shared
                if changes is not None:
                    updated = await mailbox.apply_changes(selected, changes)
                    return _fresh(updated, wanted, self._contents), updated
        updated = await mailbox.update_selected(selected)
        return _fresh(updated, wanted, self._contents), updated

    async def _check_binary(self, command: FetchCommand, wanted: list[tuple[int, Message]]) -> None:
        """RFC 3516 §4.3: BINARY of a part in an encoding it cannot undo fails the
        command with `NO [UNKNOWN-CTE]`, before any of it is written."""
        sections = [
            a.section.parts or () for a in command.attributes if a.value in _BINARY and a.section
        ]
        if not sections:
            return
        for _, message in wanted:
            content = await self._contents.get(message.mail_seq)
            if content is None:
                continue
            for parts in sections:
                encoding = unknown_encoding(content, parts)
                if encoding is not None:
                    raise DomainRefusal(b"UNKNOWN-CTE", f"cannot decode {encoding!r}")

    async def search_mailbox(
        self, selected: SelectedMailbox, keys: frozenset[SearchKey]
    ) -> tuple[Iterable[tuple[int, Message]], SelectedMailbox]:
        mailbox = await self._get_selected(selected)
        updated = await mailbox.update_selected(selected)
        requirement = FetchRequirement.reduce(key.requirement for key in keys)
        params = SearchParams(updated, disabled=self.config.disable_search_keys)
        search = GatewayCriteriaSet(keys, params)  # MODSEQ anywhere (RFC 7162 §3.1.5)
        candidates = _messages(updated, search.sequence_set)
        for criterion in search.by_modseq:  # before any content is loaded
            candidates = [(n, m) for n, m in candidates if criterion.admits(m)]
        verdict = flag_verdict(search.all_criteria)  # flags alone: imap_view/flag_search.py
        if verdict is not None:
            flags = updated.session_flags
            return [(n, m) for n, m in candidates if verdict(m.get_flags(flags))], updated
        content = not requirement.has_none(FetchRequirement.CONTENT)
        if content:
            await self._contents.load(m.mail_seq for _, m in candidates)
            await self._judge(search, candidates)
        dates = _uses_internal_date(keys)
        if dates:
            await self._contents.load_dates(m.mail_seq for _, m in candidates)
        found = []
        contents = self._contents
        for number, message in candidates:
            if content or dates:
                message = message.bound(contents)
                loaded = await message.load_content(requirement)
            else:  # flags, UIDs, numbers: nothing of the session's is read
                loaded = LoadedMessage(message, requirement, None)
            if search.matches(number, message, loaded):
                found.append((number, message))
        return found, updated

    async def _judge(
        self, search: GatewayCriteriaSet, candidates: Sequence[tuple[int, Message]]
    ) -> None:
        """The verdicts of the keys matched in content (FROM, BODY …) on every candidate,
        in one worker-thread pass: decoding text costs in proportion to the messages."""
        criteria = [
            c for c in criteria_within(search.all_criteria) if isinstance(c, ContentCriteria)
        ]
        if criteria:
            loaded = self._contents.loaded
            contents = [(m.mail_seq, loaded(m.mail_seq)) for _, m in candidates]
            await asyncio.to_thread(judge, criteria, contents)

    async def sortables(
        self,
        found: Sequence[tuple[int, Message]],
        *,
        uid: bool,
        size: bool = False,
    ) -> list[Sortable]:
        """SORT's and THREAD's keys of the messages a search found
        (imap_view/sort_loading.py)."""
        return await sortables(self._backend, self._contents, self.owner, found, uid=uid, size=size)

    async def update_flags(
        self,
        selected: SelectedMailbox,
        sequence_set: SequenceSet,
        flag_set: frozenset[Flag],
        mode: FlagOp = FlagOp.REPLACE,
    ) -> tuple[Iterable[tuple[int, Message]], SelectedMailbox]:
        messages, updated, _ = await self.store_flags(selected, sequence_set, flag_set, mode)
        return messages, updated

    async def store_flags(
        self,
        selected: SelectedMailbox,
        sequence_set: SequenceSet,
        flag_set: frozenset[Flag],
        mode: FlagOp = FlagOp.REPLACE,
        *,
        unchanged_since: int | None = None,
    ) -> tuple[list[tuple[int, Message]], SelectedMailbox, set[int]]:
        """The kept flags and keywords for the whole set at once; in Drafts, `\\Deleted`
        lasts the session. With `unchanged_since` (stored: RFC 7162 §3.1.3), messages
        changed after it are left alone; their UIDs are returned (MODIFIED)."""
        if selected.readonly:  # EXAMINE (RFC 3501 §6.3.2)
            raise MailboxReadOnly()
        mailbox = await self._get_selected(selected)
        wanted = _messages(selected, sequence_set)
        permanent = selected.permanent_flags & flag_set
        messages = [m for _, m in wanted]
        limits = self._backend.keyword_limits
        condition = None if unchanged_since is None else (mailbox.folder.id, unchanged_since)
        modified_seqs = await store_flags(
            self._backend.store,
            self.owner,
            messages,
            permanent,
            mode,
            limits,
            unchanged_since=condition,
        )
        modified = {m.uid for m in messages if m.mail_seq in modified_seqs}
        for _, message in wanted:
            if message.uid not in modified:
                selected.session_flags.update(message.uid, flag_set - permanent, mode)
        updated = await mailbox.update_selected(selected)
        return _fresh(updated, wanted, self._contents), updated, modified

    async def expunge_mailbox(
        self, selected: SelectedMailbox, uid_set: SequenceSet | None = None
    ) -> SelectedMailbox:
        """EXPUNGE (and UID EXPUNGE, RFC 4315) of the messages marked `\\Deleted`.

        CLOSE expunges too (RFC 3501 §6.4.2), but never fails: in a read-only or a
        folder nothing can leave, it only closes.
        """
        closing = isinstance(current_command.get(None), CloseCommand)
        if selected.readonly:
            if closing:
                return selected
            raise MailboxReadOnly()
        mailbox = await self._get_selected(selected)
        uids = set(await mailbox.find_deleted(uid_set or SequenceSet.all(uid=True), selected))
        doomed = [m for _, m in _messages(selected, SequenceSet.all()) if m.uid in uids]
        copied_seqs, held = mailbox.copied_out.release()
        if copied_seqs:  # imap_view/copied_out.py
            await unmark_copied(self._backend.store, self.owner, copied_seqs)
            selected.add_updates((), held)
        try:
            await expunge(self._backend.store, self.owner, mailbox.folder.key, doomed)
        except NotAllowedError:
            if not closing:
                raise
        return await mailbox.update_selected(selected)

    async def append_messages(
        self,
        name: str,
        messages: Sequence[AppendMessage],
        selected: SelectedMailbox | None = None,
    ) -> tuple[AppendUid, SelectedMailbox | None]:
        """APPEND and MULTIAPPEND (RFC 3502): every message in one write, all or none
        (imap_view/append.py); pymap's appended them one by one."""
        mailbox = await self._get_mailbox(name, try_create=True)
        assert isinstance(mailbox, MailboxData)
        uids = await appended_uids(self._backend, self.owner, mailbox.folder.key, messages)
        appended = AppendUid(mailbox.uid_validity, uids)
        if selected is None:
            return appended, None
        return appended, await (await self._get_selected(selected)).update_selected(selected)

    async def copy_messages(
        self, selected: SelectedMailbox, sequence_set: SequenceSet, mailbox: str
    ) -> tuple[CopyUid | None, SelectedMailbox]:
        """COPY to INBOX, Archive or Trash changes the mail's state (imap_view/writes.py)."""
        return await self._transfer(selected, sequence_set, mailbox, move=False)

    async def move_messages(
        self, selected: SelectedMailbox, sequence_set: SequenceSet, mailbox: str
    ) -> tuple[CopyUid | None, SelectedMailbox]:
        """RFC 6851 MOVE between INBOX, Archive and Trash; as in the web UI.

        Never pymap's `OK` for a MOVE that moved nothing: that is a `NO`.
        """
        return await self._transfer(selected, sequence_set, mailbox, move=True)

    async def _transfer(
        self, selected: SelectedMailbox, sequence_set: SequenceSet, name: str, *, move: bool
    ) -> tuple[CopyUid | None, SelectedMailbox]:
        source = await self._get_selected(selected)
        try:
            target = await self._mailbox_set.get_mailbox(name)
        except KeyError as exc:
            raise MailboxNotFound(name, try_create=True) from exc
        if selected.readonly and move:
            raise MailboxReadOnly()
        wanted = _messages(selected, sequence_set)
        moved = await transfer(
            self._backend.store,
            self.owner,
            source.folder.key,
            target.folder.key,
            [m for _, m in wanted],
            move=move,
        )
        pairs = [(m.uid, moved[m.mail_seq]) for _, m in wanted if m.mail_seq in moved]
        copy_uid = CopyUid(target.uid_validity, pairs) if pairs else None
        if not move:
            # A COPY out of INBOX takes the mail out of INBOX too, but this session
            # keeps it until its own EXPUNGE (imap_view/copied_out.py).
            source.copied_out.copied((m.uid, m.mail_seq) for _, m in wanted if m.mail_seq in moved)
            return copy_uid, selected
        return copy_uid, await source.update_selected(selected)


# FETCH items that read no more of a message than its header section (RFC 3501 §7.4.2).
_BINARY = frozenset({b"BINARY", b"BINARY.PEEK", b"BINARY.SIZE"})
_DATE_KEYS = frozenset({b"BEFORE", b"ON", b"SINCE", b"OLDER", b"YOUNGER"})


def _uses_internal_date(keys: Iterable[SearchKey]) -> bool:
    """Whether a SEARCH compares INTERNALDATE (RFC 3501 §6.4.4 BEFORE/ON/SINCE,
    RFC 5032 OLDER/YOUNGER), also inside OR, NOT and parentheses."""
    return any(key.value in _DATE_KEYS for key in keys_within(keys))


def _special_use(name: str) -> list[bytes]:
    use = SPECIAL_USE.get(name)
    return [use] if use is not None else []


def _messages(selected: SelectedMailbox, sequence_set: SequenceSet) -> list[tuple[int, Message]]:
    return messages_in(selected, sequence_set)


def _following_seqs(selected: SelectedMailbox, wanted: list[tuple[int, Message]]) -> Iterator[int]:
    return (m.mail_seq for m in following(selected, wanted))


def _fresh(
    updated: SelectedMailbox, wanted: list[tuple[int, Message]], contents: Contents
) -> list[tuple[int, Message]]:
    """The messages after the command, with their new flags, bound to the session's
    contents (imap_view/message.py); gone ones marked expunged."""
    fresh = []
    for number, message in wanted:
        now = updated.messages.get(message.uid)
        current = now if isinstance(now, Message) else message.as_expunged()
        fresh.append((number, current.bound(contents)))
    return fresh

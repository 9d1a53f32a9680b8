"""CONDSTORE and QRESYNC in the commands that carry them (RFC 7162 §3.1, §3.2).

pymap's `ConnectionState.do_select`, `do_fetch`, `do_store` and `do_search`
(0.36.7), each written out again with what RFC 7162 adds:

- SELECT/EXAMINE: `HIGHESTMODSEQ` (or `NOMODSEQ` in Drafts, which keeps none) in
  every reply (§3.1.2); the `CONDSTORE` parameter (§3.1.8); `QRESYNC (…)` (§3.2.5,
  imap_view/qresync.py), and `[CLOSED]` when it replaces a selected mailbox (§3.2.11).
- FETCH: the `MODSEQ` item (§3.1.4.1), `CHANGEDSINCE` (§3.1.4.2, which implies
  MODSEQ), `VANISHED` with it on UID FETCH (§3.2.6); a CONDSTORE session gets MODSEQ
  beside FLAGS.
- STORE: `UNCHANGEDSINCE` (§3.1.3): messages changed since are left alone and named
  in `[MODIFIED …]`; the others' FETCH carries MODSEQ even for `.SILENT`.
- SEARCH: the `MODSEQ` key (§3.1.5) wherever a search key may stand (imap_view/
  condstore_search.py), and `(MODSEQ n)`, the highest of those found.
In a mailbox without mod-sequences the MODSEQ forms are `BAD` (§3.1.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from pymap.imap.state import ConnectionState
from pymap.interfaces.message import MessageInterface
from pymap.parsing.command.auth import SelectCommand
from pymap.parsing.command.select import FetchCommand, SearchCommand, StoreCommand
from pymap.parsing.primitives import List, Number
from pymap.parsing.response import (
    CommandResponse,
    ResponseBad,
    ResponseCode,
    ResponseOk,
)
from pymap.parsing.response.code import MailboxId, PermanentFlags, UidNext, UidValidity, Unseen
from pymap.parsing.response.specials import (
    ExistsResponse,
    FlagsResponse,
    RecentResponse,
    SearchResponse,
)
from pymap.parsing.specials import FetchAttribute, FetchValue, SearchKey, SequenceSet
from pymap.parsing.specials.flag import Flag
from pymap.selected import SelectedMailbox

from imap_view.condstore_search import uses_modseq
from imap_view.extensions import Extensions, stored_modseq, wire_modseq
from imap_view.fetch_lines import FetchLine, plan_of
from imap_view.fetch_ok import FetchOk
from imap_view.flag_announcements import AnnouncedFlags
from imap_view.message import Message
from imap_view.qresync import QresyncParameters, changed_fetches, vanished_response
from imap_view.ready_fetch import ReadyFetch, flags_value, uid_value
from imap_view.selected import MODSEQ, GatewaySelected, modseq_value
from imap_view.session import Session

__all__ = ["CondstoreState", "Found", "Searching"]

_CommandRet = tuple[CommandResponse, SelectedMailbox | None]
_FLAGS = FetchAttribute(b"FLAGS")
_NOMODSEQ = b": this mailbox keeps no mod-sequences (NOMODSEQ)."


class _SearchWithModseq(SearchResponse):
    """RFC 7162 §3.1.5: `* SEARCH 2 5 (MODSEQ 917162500)`."""

    def __init__(self, numbers: list[int], highest: int) -> None:
        super().__init__(numbers)
        self.highest = highest

    @property
    def text(self) -> bytes:
        return super().text + b" (MODSEQ %d)" % wire_modseq(self.highest)


def _number(argument: List | None) -> int | None:
    """An option's one number argument (`CHANGEDSINCE 12`); ValueError otherwise."""
    if argument is None:
        return None
    values = list(argument.value)
    if len(values) != 1 or not isinstance(values[0], Number):
        raise ValueError(argument)
    return int(values[0].value)


class Searching(Protocol):
    """A command that searches: SEARCH, SORT, THREAD and their UID forms."""

    tag: bytes
    command: ClassVar[bytes]
    uid: ClassVar[bool]
    keys: frozenset[SearchKey]


@dataclass(slots=True)
class Found:
    """What a search found: the reply to complete, (number, message) in sequence order,
    the mailbox after it, and whether a MODSEQ key stood in it (RFC 7162 §3.1.5)."""

    response: ResponseOk
    messages: list[tuple[int, MessageInterface]]
    updates: SelectedMailbox
    by_modseq: bool

    def numbers(self, *, uid: bool) -> list[int]:
        return [message.uid if uid else number for number, message in self.messages]

    def highest_modseq(self) -> int:
        """The highest mod-sequence among the messages, as stored."""
        stored = (m.modseq for _, m in self.messages if isinstance(m, Message))
        return max(stored, default=0)


class CondstoreState(ConnectionState):
    @property
    def _gateway(self) -> Session:
        session = self.session
        assert isinstance(session, Session)
        return session

    @property
    def _extensions(self) -> Extensions:
        return self._gateway.extensions

    def _gateway_selected(self) -> GatewaySelected:
        selected = self.selected
        assert isinstance(selected, GatewaySelected)
        return selected

    async def do_select(self, cmd: SelectCommand) -> _CommandRet:
        extensions = self._extensions
        qresync = None
        argument = cmd.options.get(b"QRESYNC")
        if argument is not None:
            if not extensions.qresync:  # RFC 7162 §3.2.5
                return ResponseBad(cmd.tag, cmd.command + b": ENABLE QRESYNC first."), None
            try:
                qresync = QresyncParameters.of(argument)
            except ValueError:
                return ResponseBad(cmd.tag, cmd.command + b": Invalid arguments."), None
        if cmd.options.has(b"CONDSTORE"):
            extensions.condstore = True
        closed = self._selected is not None and extensions.qresync
        self._selected = None
        mailbox, updates = await self.session.select_mailbox(cmd.mailbox, cmd.readonly)
        assert isinstance(updates, GatewaySelected)
        if updates.readonly:
            response = ResponseOk(cmd.tag, b"Selected mailbox.", ResponseCode.of(b"READ-ONLY"))
        else:
            response = ResponseOk(cmd.tag, b"Selected mailbox.", ResponseCode.of(b"READ-WRITE"))
        if closed:  # RFC 7162 §3.2.11: what follows is the new mailbox's
            response.add_untagged_ok(b"Previous mailbox closed.", ResponseCode.of(b"CLOSED"))
        if updates.readonly:
            recent = mailbox.recent
            permanent: frozenset[Flag] = frozenset()
            response.add_untagged_ok(b"Read-only mailbox.", PermanentFlags([]))
        else:
            recent = updates.session_flags.recent
            permanent = mailbox.permanent_flags
            response.add_untagged_ok(b"Flags permitted.", PermanentFlags(permanent))
        response.add_untagged(FlagsResponse(mailbox.flags))
        updates.announced = AnnouncedFlags(mailbox.flags, permanent)  # RFC 3501 §7.2.6
        response.add_untagged(ExistsResponse(updates.messages.exists))
        response.add_untagged(RecentResponse(recent))
        response.add_untagged_ok(b"Predicted next UID.", UidNext(mailbox.next_uid))
        response.add_untagged_ok(b"UIDs valid.", UidValidity(mailbox.uid_validity))
        if mailbox.first_unseen:
            response.add_untagged_ok(b"First unseen message.", Unseen(mailbox.first_unseen))
        response.add_untagged_ok(b"Object ID.", MailboxId(mailbox.mailbox_id))
        if not updates.has_modseq:
            response.add_untagged_ok(b"No mod-sequences here.", ResponseCode.of(b"NOMODSEQ"))
            return response, updates
        highest = ResponseCode.of(b"HIGHESTMODSEQ %d" % wire_modseq(updates.mod_sequence))
        response.add_untagged_ok(b"Highest mod-sequence.", highest)
        if qresync is not None and qresync.uid_validity == mailbox.uid_validity:
            since = stored_modseq(qresync.modseq)
            recorded = await self._gateway.expunged_since(updates, since)
            vanished = vanished_response(updates, recorded, qresync.known, mailbox.next_uid)
            if vanished is not None:
                response.add_untagged(vanished)
            response.add_untagged(*changed_fetches(updates, since, qresync.known))
        return response, updates

    async def do_fetch(self, cmd: FetchCommand) -> _CommandRet:
        extensions = self._extensions
        selected = self._gateway_selected()
        try:
            since = _number(cmd.options.get(b"CHANGEDSINCE"))
        except ValueError:
            return ResponseBad(cmd.tag, cmd.command + b": Invalid arguments."), None
        vanished = cmd.options.has(b"VANISHED")
        attributes = list(cmd.attributes)
        asked = since is not None or any(a.value == b"MODSEQ" for a in attributes)
        if asked:
            if not selected.has_modseq:
                return ResponseBad(cmd.tag, cmd.command + _NOMODSEQ), None
            extensions.condstore = True  # RFC 7162 §3.1
        if vanished and not (cmd.uid and since is not None and extensions.qresync):
            text = b": VANISHED goes with UID FETCH, CHANGEDSINCE and ENABLE QRESYNC."
            return ResponseBad(cmd.tag, cmd.command + text), None  # RFC 7162 §3.2.6
        wants_flags = since is not None or _FLAGS in attributes
        if selected.condstore and wants_flags and MODSEQ not in attributes:
            attributes.append(MODSEQ)
        if not cmd.uid:
            selected.hide_expunged = True
        set_seen = not selected.readonly and any(a.set_seen for a in attributes)
        changed_since = None if since is None else stored_modseq(since)
        messages, updates = await self._gateway.fetch_messages(
            selected, cmd.sequence_set, set_seen, changed_since=changed_since
        )
        response = FetchOk(cmd.tag, cmd.command + b" completed.")
        if vanished and changed_since is not None:
            recorded = await self._gateway.expunged_since(selected, changed_since)
            next_uid = self._gateway.next_uid(selected)
            assert isinstance(updates, GatewaySelected)
            gone = vanished_response(updates, recorded, cmd.sequence_set, next_uid)
            if gone is not None:
                response.add_untagged(gone)
        plan = plan_of(attributes)  # imap_view/fetch_lines.py
        lines = [FetchLine(number, message, self.selected, plan) for number, message in messages]
        if any(line.message.expunged for line in lines):
            response.code = ResponseCode.of(b"EXPUNGEISSUED")
        response.add_lines(lines)
        return response, updates

    async def do_store(self, cmd: StoreCommand) -> _CommandRet:
        selected = self._gateway_selected()
        try:
            unchanged = _number(cmd.options.get(b"UNCHANGEDSINCE"))
        except ValueError:
            return ResponseBad(cmd.tag, cmd.command + b": Invalid arguments."), None
        if unchanged is not None:
            if not selected.has_modseq:
                return ResponseBad(cmd.tag, cmd.command + _NOMODSEQ), None
            self._extensions.condstore = True  # RFC 7162 §3.1
        if not cmd.uid:
            selected.hide_expunged = True
        if cmd.silent:
            selected.silence(cmd.sequence_set, cmd.flag_set, cmd.mode)
        messages, updates, modified = await self._gateway.store_flags(
            selected,
            cmd.sequence_set,
            cmd.flag_set,
            cmd.mode,
            unchanged_since=None if unchanged is None else stored_modseq(unchanged),
        )
        response = ResponseOk(cmd.tag, cmd.command + b" completed.")
        condstore = selected.condstore
        failed = []
        for number, message in messages:
            if message.uid in modified:
                failed.append(message.uid if cmd.uid else number)
                continue
            if message.expunged:  # as pymap: its flags still go out
                response.code = ResponseCode.of(b"EXPUNGEISSUED")
            elif cmd.silent and not (condstore and unchanged is not None):
                continue
            data: list[FetchValue] = []
            if not cmd.silent:
                data.append(flags_value(message.get_flags(selected.session_flags)))
            if cmd.uid:
                data.append(uid_value(message.uid))
            if condstore:
                data.append(modseq_value(message.modseq))
            response.add_untagged(ReadyFetch(number, data))
        if failed:  # RFC 7162 §3.1.3: the messages left alone, as numbers or UIDs
            modified_set = bytes(SequenceSet.build(failed, uid=cmd.uid))
            response.code = ResponseCode.of(b"MODIFIED " + modified_set)
        return response, updates

    async def found_by_search(self, cmd: Searching) -> Found | CommandResponse:
        """The messages a SEARCH finds (SORT and THREAD search the same way,
        imap_view/sort_state.py), or the `BAD` for a MODSEQ key where there are none."""
        selected = self._gateway_selected()
        by_modseq = uses_modseq(cmd.keys)  # anywhere: inside OR, NOT, parentheses too
        if by_modseq:
            if not selected.has_modseq:
                return ResponseBad(cmd.tag, cmd.command + _NOMODSEQ)
            self._extensions.condstore = True  # RFC 7162 §3.1
        if not cmd.uid:
            selected.hide_expunged = True
        messages, updates = await self.session.search_mailbox(selected, cmd.keys)
        response = ResponseOk(cmd.tag, cmd.command + b" completed.")
        found = [(number, message) for number, message in messages]
        if any(message.expunged for _, message in found):
            response.code = ResponseCode.of(b"EXPUNGEISSUED")
        return Found(response, found, updates, by_modseq)

    async def do_search(self, cmd: SearchCommand) -> _CommandRet:
        found = await self.found_by_search(cmd)
        if not isinstance(found, Found):
            return found, None
        numbers = found.numbers(uid=cmd.uid)
        if found.by_modseq and numbers:
            found.response.add_untagged(_SearchWithModseq(numbers, found.highest_modseq()))
        else:
            found.response.add_untagged(SearchResponse(numbers))
        return found.response, found.updates

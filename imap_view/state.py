"""pymap's connection state with the commands it lacks: ENABLE, NAMESPACE, UNSELECT.

pymap's `ConnectionState` runs each command by a `do_<name>` method; the
extensions that touch the protocol flow (LIST-EXTENDED, CONDSTORE, QRESYNC, SORT,
THREAD, ESEARCH) add or override such methods in their own modules' mixins, and this
class joins them.
"""

from __future__ import annotations

from pymap.bytes import BytesFormat
from pymap.parsing.command import Command, CommandAuth, CommandSelect
from pymap.parsing.command.auth import ListCommand, StatusCommand
from pymap.parsing.commands import InvalidCommand
from pymap.parsing.primitives import List, Nil, QuotedString
from pymap.parsing.response import (
    CommandResponse,
    ResponseBad,
    ResponseCode,
    ResponseNo,
    ResponseOk,
    UntaggedResponse,
)
from pymap.parsing.response.code import Capability
from pymap.parsing.response.specials import ExpungeResponse
from pymap.selected import SelectedMailbox

from core.errors import DomainError
from core.mailboxes.folder_names import DELIMITER
from imap_view.condstore_enabling import announce_highest, highest_of
from imap_view.extensions import wire_modseq
from imap_view.flag_announcements import first
from imap_view.list_extended import CheckedLsubCommand, ExtendedListCommand, listed_line
from imap_view.list_subscribed import subscribed_selection
from imap_view.mailbox_names import InvalidName
from imap_view.pymap_compat import untagged
from imap_view.replies import refusal_for
from imap_view.selected import GatewaySelected, VanishedResponse
from imap_view.session import Session
from imap_view.session_commands import EnableCommand, NamespaceCommand, UnselectCommand
from imap_view.sort_state import SortState
from imap_view.status import status_response

__all__ = ["GatewayState"]

_CommandRet = tuple[CommandResponse, SelectedMailbox | None]


class GatewayState(SortState):
    @property
    def capability(self) -> Capability:
        """After login, LITERAL+ where the greeting said LITERAL- (RFC 7888 §4): a
        logged-in client may send a literal up to the APPENDLIMIT without waiting for `+`."""
        listed = super().capability
        if self._session is None:
            return listed
        swapped = [b"LITERAL+" if c == b"LITERAL-" else c for c in listed.capabilities]
        return Capability(swapped)

    async def do_command(self, cmd: Command) -> CommandResponse:
        """pymap's, and for a CONDSTORE session a command whose reply expunged messages
        ends with `OK [HIGHESTMODSEQ n]`: EXPUNGE and VANISHED carry no mod-sequence, so a
        client would not learn what it has caught up to (RFC 7162 §3.1.2.1's response
        code; Dovecot sends it the same way).

        A domain refusal no handler turned into a reply (the disk full while LOGIN
        creates the folders, or while a STORE is written) is `NO [code]` like the
        rest, not pymap's `[SERVERBUG]` and a closed connection.

        A mailbox argument that is no valid name (imap_view/mailbox_names.py) is a
        `NO` as Dovecot answers it, once the command is allowed in this state.

        The command that switches CONDSTORE on while a mailbox is selected starts its
        reply with `* OK [HIGHESTMODSEQ n]` (imap_view/condstore_enabling.py)."""
        if isinstance(cmd, InvalidCommand) and isinstance(cmd.parse_exc, InvalidName):
            return self._invalid_name(cmd, cmd.parse_exc)
        session = self._session
        condstore_before = isinstance(session, Session) and session.extensions.condstore
        highest = None if condstore_before else highest_of(self._selected)
        try:
            response = await super().do_command(cmd)
        except DomainError as exc:
            return refusal_for(exc).get_response(cmd.tag)
        if isinstance(session, Session) and session.extensions.condstore and not condstore_before:
            announce_highest(cmd, response, highest)
        selected = self._selected
        if isinstance(selected, GatewaySelected):  # a new keyword's `* FLAGS` before its FETCH
            first(response, selected.announced)
        if (
            isinstance(selected, GatewaySelected)
            and selected.condstore
            and isinstance(response, ResponseOk)
            and response.code is None
            and isinstance(selected.mod_sequence, int)
            and any(isinstance(u, VanishedResponse | ExpungeResponse) for u in untagged(response))
        ):
            highest = wire_modseq(selected.mod_sequence)
            response.code = ResponseCode.of(b"HIGHESTMODSEQ %d" % highest)
        return response

    def _invalid_name(self, cmd: InvalidCommand, exc: InvalidName) -> CommandResponse:
        """pymap's state checks (its `do_command` runs them only on a parsed command), then
        the `NO`."""
        kind = cmd.command_type
        if kind is not None and issubclass(kind, CommandAuth) and self._session is None:
            return ResponseBad(cmd.tag, kind.command + b": Must authenticate first.")
        if kind is not None and issubclass(kind, CommandSelect) and self._selected is None:
            return ResponseBad(cmd.tag, kind.command + b": Must select a mailbox first.")
        return ResponseNo(cmd.tag, exc.reason)

    @property
    def gateway_session(self) -> Session:
        session = self.session
        assert isinstance(session, Session)
        return session

    async def do_enable(self, cmd: EnableCommand) -> _CommandRet:
        """RFC 5161 §3.1: `* ENABLED` lists what this command switched on (RFC 6855
        UTF8=ACCEPT, RFC 7162 CONDSTORE and QRESYNC); other names are ignored."""
        enabled = self.gateway_session.enable(cmd.names)
        response = ResponseOk(cmd.tag, b"ENABLE completed.")
        response.add_untagged(UntaggedResponse(BytesFormat(b" ").join([b"ENABLED"], enabled)))
        return response, None

    async def do_namespace(self, cmd: NamespaceCommand) -> _CommandRet:
        """RFC 2342 §5: one personal namespace, the root, with `/` between levels
        (`Sessions/<alias>`); no other users' or shared namespaces."""
        personal = List([List([QuotedString(b""), QuotedString(b"/")])])
        text = BytesFormat(b" ").join([b"NAMESPACE", bytes(personal), bytes(Nil()), bytes(Nil())])
        response = ResponseOk(cmd.tag, b"NAMESPACE completed.")
        response.add_untagged(UntaggedResponse(text))
        return response, None

    async def do_status(self, cmd: StatusCommand) -> _CommandRet:
        """pymap's STATUS, with HIGHESTMODSEQ (imap_view/status.py)."""
        if any(a.value == b"HIGHESTMODSEQ" for a in cmd.status_list):
            self.gateway_session.extensions.condstore = True  # RFC 7162 §3.1
        snapshot, updates = await self.session.get_mailbox(cmd.mailbox, selected=self._selected)
        response = ResponseOk(cmd.tag, b"STATUS completed.")
        response.add_untagged(status_response(cmd.mailbox, snapshot, cmd.status_list, updates))
        return response, updates

    async def do_list(self, cmd: ListCommand) -> _CommandRet:
        """LIST-EXTENDED (imap_view/list_extended.py); a plain LIST and LSUB are pymap's,
        but for a pattern that is no name, which lists nothing."""
        if isinstance(cmd, CheckedLsubCommand) and not cmd.pattern_valid:
            return ResponseOk(cmd.tag, b"LSUB completed."), self._selected
        if not isinstance(cmd, ExtendedListCommand) or not cmd.extended:
            return await super().do_list(cmd)
        if any(a.value == b"HIGHESTMODSEQ" for a in cmd.status):
            self.gateway_session.extensions.condstore = True  # as STATUS (RFC 7162 §3.1)
        found: dict[str, tuple[str | None, list[bytes]]] = {}
        updates = self._selected
        for pattern in cmd.patterns:  # RFC 5258 §3: every name once, whichever patterns match
            listed, updates = await self.session.list_mailboxes(
                cmd.ref_name, pattern, selected=self._selected
            )
            for name, delimiter, attributes in listed:
                found.setdefault(name, (delimiter, list(attributes)))
        subscribed: frozenset[str] | None = None
        if b"SUBSCRIBED" in cmd.selection or b"SUBSCRIBED" in cmd.returns:
            subscribed = frozenset(await self.gateway_session.subscribed_names())
        chosen = None
        if subscribed is not None and b"SUBSCRIBED" in cmd.selection:
            recursive = b"RECURSIVEMATCH" in cmd.selection
            chosen = subscribed_selection(
                subscribed, cmd.ref_name, cmd.patterns, DELIMITER, recursive=recursive
            )
            for name in sorted(chosen.matching | chosen.with_children):  # RFC 5258 §3
                found.setdefault(name, (DELIMITER, [b"NonExistent"]))
        response = ResponseOk(cmd.tag, b"LIST completed.")
        for name, (delimiter, attributes) in found.items():
            line = listed_line(
                cmd, name, delimiter, attributes,
                subscribed=subscribed is None or name in subscribed,
                childinfo=chosen is not None and chosen.childinfo(name),
            )  # fmt: skip
            if line is None:
                continue
            response.add_untagged(line)
            if cmd.status and b"Noselect" not in attributes:  # RFC 5819 §2
                snapshot, updates = await self.session.get_mailbox(name, selected=updates)
                response.add_untagged(status_response(name, snapshot, cmd.status, updates))
        return response, updates

    async def do_unselect(self, cmd: UnselectCommand) -> _CommandRet:
        """RFC 3691 §2: back to the authenticated state, nothing expunged (unlike CLOSE),
        also after EXAMINE."""
        self._selected = None
        return ResponseOk(cmd.tag, b"UNSELECT completed."), None

"""pymap's connection state with the commands it lacks: ENABLE, NAMESPACE, UNSELECT.

pymap's `ConnectionState` runs each command by a `do_<name>` method; the
extensions that touch the protocol flow (LIST-EXTENDED, CONDSTORE, QRESYNC) add
or override such methods in their own modules' mixins, and this class joins them.
"""

from __future__ import annotations

from pymap.bytes import BytesFormat
from pymap.imap.state import ConnectionState
from pymap.parsing.primitives import List, Nil, QuotedString
from pymap.parsing.response import CommandResponse, ResponseOk, UntaggedResponse
from pymap.parsing.response.code import Capability
from pymap.selected import SelectedMailbox

from imap_view.session import Session
from imap_view.session_commands import EnableCommand, NamespaceCommand, UnselectCommand

__all__ = ["GatewayState"]

_CommandRet = tuple[CommandResponse, SelectedMailbox | None]


class GatewayState(ConnectionState):
    @property
    def capability(self) -> Capability:
        """After login, LITERAL+ where the greeting said LITERAL- (RFC 7888 §4): a
        logged-in client may send a literal up to the APPENDLIMIT without waiting for `+`."""
        listed = super().capability
        if self._session is None:
            return listed
        swapped = [b"LITERAL+" if c == b"LITERAL-" else c for c in listed.capabilities]
        return Capability(swapped)

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

    async def do_unselect(self, cmd: UnselectCommand) -> _CommandRet:
        """RFC 3691 §2: back to the authenticated state, nothing expunged (unlike CLOSE),
        also after EXAMINE."""
        self._selected = None
        return ResponseOk(cmd.tag, b"UNSELECT completed."), None

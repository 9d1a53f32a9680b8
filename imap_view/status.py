"""STATUS data items (RFC 3501 §6.3.10), for STATUS and for LIST-STATUS (RFC 5819).

pymap's own STATUS builds the same items; this one is shared by both commands and
adds RFC 7162 §3.1.2.3's HIGHESTMODSEQ (0 for Drafts, which keeps no mod-sequences,
as RFC 7162 §3.1.2.2 asks of such a mailbox).
"""

from __future__ import annotations

from collections.abc import Sequence

from pymap.bytes import MaybeBytes
from pymap.interfaces.mailbox import MailboxInterface
from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command.auth import StatusCommand
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List, Number
from pymap.parsing.response.specials import StatusResponse
from pymap.parsing.specials import Mailbox, StatusAttribute
from pymap.selected import SelectedMailbox

from imap_view.extensions import wire_modseq

__all__ = [
    "STATUS_ITEMS",
    "GatewayStatusAttribute",
    "GatewayStatusCommand",
    "status_response",
]

STATUS_ITEMS = StatusAttribute.valid_statuses | {b"HIGHESTMODSEQ"}


class GatewayStatusAttribute(StatusAttribute):
    """pymap's status attribute, HIGHESTMODSEQ (RFC 7162 §3.1.2.3) allowed too."""

    valid_statuses = STATUS_ITEMS


def status_response(
    name: str,
    snapshot: MailboxInterface,
    attributes: Sequence[StatusAttribute],
    selected: SelectedMailbox | None,
) -> StatusResponse:
    data: dict[StatusAttribute, MaybeBytes] = {}
    for attribute in attributes:
        item = attribute.value
        if item == b"MESSAGES":
            data[attribute] = Number(snapshot.exists)
        elif item == b"RECENT":
            recent = snapshot.recent
            if selected is not None and selected.mailbox_id == snapshot.mailbox_id:
                recent = selected.session_flags.recent
            data[attribute] = Number(recent)
        elif item == b"UNSEEN":
            data[attribute] = Number(snapshot.unseen)
        elif item == b"UIDNEXT":
            data[attribute] = Number(snapshot.next_uid)
        elif item == b"UIDVALIDITY":
            data[attribute] = Number(snapshot.uid_validity)
        elif item == b"MAILBOXID":
            data[attribute] = snapshot.mailbox_id.parens
        elif item == b"HIGHESTMODSEQ":
            highest = getattr(snapshot, "highest_modseq", None)
            data[attribute] = Number(0 if highest is None else wire_modseq(highest))
    return StatusResponse(name, data)


class GatewayStatusCommand(StatusCommand):
    """pymap's STATUS parsed with `GatewayStatusAttribute`, so HIGHESTMODSEQ is an item."""

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[GatewayStatusCommand, memoryview]:
        _, buf = Space.parse(buf, params)
        mailbox, buf = Mailbox.parse(buf, params)
        _, buf = Space.parse(buf, params)
        items, after = List.parse(buf, params.copy(expected=[GatewayStatusAttribute]))
        if not items.value:
            raise NotParseable(buf)
        _, buf = EndLine.parse(after, params)
        return cls(params.tag, mailbox, items.get_as(GatewayStatusAttribute)), buf

"""`* OK [HIGHESTMODSEQ n]` for the command that switches CONDSTORE on while a mailbox
is selected.

RFC 7162 §3.1 lets a client switch CONDSTORE on without ENABLE, by its first
"CONDSTORE enabling command" (FETCH MODSEQ or CHANGEDSINCE, STORE UNCHANGEDSINCE,
SEARCH MODSEQ, STATUS HIGHESTMODSEQ; imap_view/extensions.py). The client then
needs the mailbox's highest mod-sequence, which its SELECT may have sent it before it
cared: §3.1.2.1 says the server MUST send the HIGHESTMODSEQ response code "when
CONDSTORE is enabled implicitly" while a mailbox is selected. Dovecot sends it as
the first untagged line of that command's reply, for ENABLE CONDSTORE in the
selected state too; here likewise. A SELECT or EXAMINE that enables it carries
HIGHESTMODSEQ in its own reply already.
"""

from __future__ import annotations

from pymap.parsing.command import Command
from pymap.parsing.command.auth import SelectCommand
from pymap.parsing.response import CommandResponse, ResponseCode, ResponseOk, UntaggedResponse
from pymap.selected import SelectedMailbox

from imap_view.extensions import wire_modseq
from imap_view.pymap_compat import replace_untagged, untagged
from imap_view.selected import GatewaySelected

__all__ = ["announce_highest", "highest_of"]


class _HighestLine(UntaggedResponse):
    """`* OK [HIGHESTMODSEQ n] Highest mod-sequence.`"""


def highest_of(selected: SelectedMailbox | None) -> int | None:
    """The selected mailbox's highest mod-sequence as the session knows it (before the
    command runs: a STORE raises it), or None when there is none to tell."""
    if not isinstance(selected, GatewaySelected) or not selected.has_modseq:
        return None
    highest = selected.mod_sequence
    return highest if isinstance(highest, int) else None


def announce_highest(cmd: Command, response: CommandResponse, highest: int | None) -> None:
    """Put `* OK [HIGHESTMODSEQ highest]` (the mailbox's when the command began) ahead of
    the reply's untagged lines, if the command succeeded and is no SELECT."""
    if highest is None or isinstance(cmd, SelectCommand) or not isinstance(response, ResponseOk):
        return
    code = ResponseCode.of(b"HIGHESTMODSEQ %d" % wire_modseq(highest))
    line = _HighestLine(b"Highest mod-sequence.", code, condition=b"OK")
    lines = [line, *untagged(response)]
    table = {}
    for index, kept in enumerate(lines):
        try:
            key = kept.merge_key
        except TypeError:
            continue
        table[(type(kept), key)] = index
    replace_untagged(response, lines, table)

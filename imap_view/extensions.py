"""What one IMAP session has switched on with ENABLE (RFC 5161), and mod-sequences on the wire.

The flags live on the session (imap_view/session.py) and are read by everything
that writes a response: the selected mailbox's untagged updates
(imap_view/selected.py), FETCH and STORE (imap_view/condstore.py), ENVELOPE
(`Contents.utf8_accept`). CONDSTORE is also switched on by any "CONDSTORE
enabling command" (RFC 7162 §3.1: SELECT (CONDSTORE), STATUS HIGHESTMODSEQ, FETCH
MODSEQ or CHANGEDSINCE, STORE UNCHANGEDSINCE, SEARCH MODSEQ), QRESYNC only by
ENABLE, and QRESYNC implies CONDSTORE (RFC 7162 §3.2.3).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENABLEABLE", "Extensions", "stored_modseq", "wire_modseq"]

CONDSTORE = b"CONDSTORE"
QRESYNC = b"QRESYNC"
UTF8_ACCEPT = b"UTF8=ACCEPT"
ENABLEABLE = (CONDSTORE, QRESYNC, UTF8_ACCEPT)


@dataclass(slots=True)
class Extensions:
    condstore: bool = False
    qresync: bool = False
    utf8_accept: bool = False

    def enable(self, names: list[bytes]) -> list[bytes]:
        """Switch on what `names` asks for that we support; the names switched on now
        (RFC 5161 §3.2: ENABLED lists what this command enabled, unknown names are ignored)."""
        enabled = []
        for name in dict.fromkeys(n.upper() for n in names):
            if name == CONDSTORE and not self.condstore:
                self.condstore = True
            elif name == QRESYNC and not self.qresync:
                self.qresync = self.condstore = True
            elif name == UTF8_ACCEPT and not self.utf8_accept:
                self.utf8_accept = True
            else:
                continue
            enabled.append(name)
        return enabled


def wire_modseq(stored: int) -> int:
    """The mod-sequence a client sees for one the store keeps.

    The store counts from 0 (a folder no change has touched yet, message rows from
    before mod-sequences were kept), while RFC 7162 §7 makes every mod-sequence a
    client sees positive (`mod-sequence-value`, 1 and up): so the wire value is the
    stored one plus one, everywhere, and order and "changed since" are unchanged.
    """
    return stored + 1


def stored_modseq(wire: int) -> int:
    """A client's mod-sequence (CHANGEDSINCE, UNCHANGEDSINCE, QRESYNC, SEARCH MODSEQ)
    as the store counts it; `CHANGEDSINCE 0` becomes -1, before everything."""
    return wire - 1

"""SENTBEFORE, SENTON and SENTSINCE (RFC 3501 §6.4.4) of a message whose Date cannot be
read, as Dovecot answers them.

The keys compare the `Date:` header's date, "disregarding time and timezone"; RFC 3501
says nothing of a message without one, or with one no parser reads (`Date: not a
date`). pymap matched such a message by none of the three keys, so a client looking
for old mail (`SENTBEFORE`) never found it. Dovecot takes its sent date to be the
epoch, 1970-01-01: `SENTBEFORE` and `SENTSINCE 1-Jan-1970` find it, `SENTON 1-Jan-1970`
too; the gateway answers the same (SORT's DATE falls back to INTERNALDATE instead, as
RFC 5256 §2.2 asks: imap_view/sort_keys.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from pymap.interfaces.message import LoadedMessageInterface, MessageInterface
from pymap.search import HeaderDateSearchCriteria

__all__ = ["OPERATORS", "SentDateCriteria"]

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
OPERATORS: Final = {b"SENTBEFORE": "<", b"SENTON": "=", b"SENTSINCE": ">="}


class SentDateCriteria(HeaderDateSearchCriteria):
    """pymap's criterion of the Date header, the epoch when there is no readable one."""

    @classmethod
    def _get_msg_date(
        cls, msg: MessageInterface, loaded_msg: LoadedMessageInterface
    ) -> datetime | None:
        date = loaded_msg.get_envelope_structure().date
        written = date.datetime if date is not None else None
        return EPOCH if written is None else written

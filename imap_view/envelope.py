"""ENVELOPE of a parsed message, written from the same values a kept summary holds.

RFC 3501 §7.4.2 gives the layout; the values are read as a message's kept summary
reads them (core/mime/summary.py `envelope_summary`: the Date as written, the subject
and display names as the message carries them, RFC 2047 encoded-words, in 7-bit unless
the session enabled UTF8=ACCEPT (RFC 6855 §3), the address lists as Dovecot reads
them) and written by the same function (imap_view/kept_fetch.py), so a message
answers alike whether its summary was kept or it was parsed. pymap 0.36 sent the
subject and display names decoded, as raw UTF-8, re-formatted the date as an
INTERNALDATE and left out display names given as comments and source routes.

The values are read in the worker thread that parses the content
(imap_view/parsed_contents.py, `prepare_envelopes`), not on the event loop.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from pymap.bytes import WriteStream
from pymap.mime import MessageContent
from pymap.parsing.response.fetch import EnvelopeStructure

from core.mime.summary import envelope_summary
from imap_view.kept_fetch import envelope_bytes
from imap_view.opaque import OpaqueContent

__all__ = ["envelope_of", "prepare_envelopes"]


class _Envelope(EnvelopeStructure):
    """pymap's envelope holding the parsed Date and the decoded subject (what SEARCH's
    SENTBEFORE, SENTON, SENTSINCE and SUBJECT read of it), written as its kept
    values are (see module doc)."""

    wire: bytes = b""

    def __bytes__(self) -> bytes:
        return self.wire

    def write(self, writer: WriteStream) -> None:
        writer.write(self.wire)


# A content's ENVELOPE values, and its envelope by UTF8=ACCEPT: a content is shared by
# every session (imap_view/content_cache.py) and never changes, so both are made once
# (a message list, `FETCH 1:n (FLAGS ENVELOPE)`, writes every message's envelope).
_VALUES: WeakKeyDictionary[MessageContent, dict[str, Any]] = WeakKeyDictionary()
_ENVELOPES: tuple[WeakKeyDictionary[MessageContent, _Envelope], ...] = (
    WeakKeyDictionary(),
    WeakKeyDictionary(),
)


def _values(msg: MessageContent) -> dict[str, Any]:
    values = _VALUES.get(msg)
    if values is None:
        if isinstance(msg, OpaqueContent):
            values = envelope_summary(bytes(msg), opaque=True)
        else:
            values = envelope_summary(bytes(msg.header))
        _VALUES[msg] = values
    return values


def prepare_envelopes(content: MessageContent) -> None:
    """Read the ENVELOPE values of a content and of every message it carries; CPU work
    (the address lists, the email package on the Date and Subject) for the worker
    thread that parses it, before the content is shared."""
    _values(content)
    for part in content.walk():
        kind = part.body.content_type
        if kind.maintype == "message" and kind.subtype == "rfc822" and part.body.has_nested:
            _values(part.body.nested[0])


def envelope_of(msg: MessageContent, *, utf8: bool = False) -> EnvelopeStructure:
    known = _ENVELOPES[utf8]
    envelope = known.get(msg)
    if envelope is None:
        parsed = msg.header.parsed
        envelope = _Envelope(
            parsed.date, parsed.subject, None, None, None, None, None, None, None, None
        )
        envelope.wire = envelope_bytes(_values(msg), utf8)
        known[msg] = envelope
    return envelope

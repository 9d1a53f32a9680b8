"""ENVELOPE as RFC 3501 §7.4.2 writes it, in 7-bit unless the session enabled UTF8=ACCEPT.

pymap 0.36 sends the subject and display names decoded, as raw UTF-8 literals,
and re-formats the date as an INTERNALDATE; here the Date goes out as written, as
Dovecot sends it. RFC 6855 §3 allows UTF-8 there only
after `ENABLE UTF8=ACCEPT`; before, the header goes out as stored (RFC 2047
encoded-words), as Dovecot does. A session that enabled it
(imap_view/session_commands.py) loads messages whose envelope has `utf8` on.
"""

from __future__ import annotations

from collections.abc import Sequence
from email.headerregistry import Address, AddressHeader, SingleAddressHeader
from weakref import WeakKeyDictionary

from pymap.bytes import Writeable, WriteStream
from pymap.mime import MessageContent
from pymap.parsing.primitives import List, Nil, String
from pymap.parsing.response.fetch import EnvelopeStructure

from imap_view.header_text import raw_header, seven_bit_text, stored_text

__all__ = ["envelope_of"]


class _Envelope(EnvelopeStructure):
    """The date as written (RFC 3501 §7.4.2: env-date is the Date header), the
    subject and display names as the message carries them (see module doc)."""

    utf8 = False
    # The subject as it goes on the wire; `subject` stays the decoded text, which is
    # what SEARCH SUBJECT matches (pymap's search reads it from this structure).
    wire_subject: object | None = None
    # The Date as written, unfolded (pymap's `date` is the email package's reading,
    # which SEARCH SENTON compares; its text is the date formatted anew: a weekday
    # put right, a comment dropped).
    wire_date: str | None = None
    _wire: bytes | None = None  # formatted once (see `envelope_of`)

    def __bytes__(self) -> bytes:
        if self._wire is None:
            self._wire = bytes(self._value)
        return self._wire

    def write(self, writer: WriteStream) -> None:
        writer.write(bytes(self))

    @property
    def _value(self) -> Writeable:
        written = self.wire_date or (str(self.date) if self.date else None)
        date = String.build(written) if written else Nil()
        subject = self.subject if self.utf8 else self.wire_subject
        return List(
            [
                date,
                String.build(subject),
                self._list(self.from_) or Nil(),
                # RFC 3501 §7.4.2: a Sender or Reply-To absent, or present but
                # empty, is the From member.
                self._list(self.sender) or self._list(self.from_) or Nil(),
                self._list(self.reply_to) or self._list(self.from_) or Nil(),
                self._list(self.to) or Nil(),
                self._list(self.cc) or Nil(),
                self._list(self.bcc) or Nil(),
                String.build(self.in_reply_to),
                String.build(self.message_id),
            ]
        )

    def _list(self, headers: Sequence[AddressHeader] | None) -> List | None:
        """The addresses, or None for none; a group (RFC 5322 §3.4) between its start,
        `(NIL NIL "name" NIL)`, and its end, `(NIL NIL NIL NIL)`, as RFC 3501 §7.4.2
        writes it. A single-address header with no address or several (`Sender: `)
        gives what it has: its `address` would raise."""
        items: list[Writeable] = []
        for header in headers or ():
            if isinstance(header, SingleAddressHeader):
                items.extend(self._address(address) for address in header.addresses)
                continue
            for group in header.groups:
                if group.display_name is None:
                    items.extend(self._address(address) for address in group.addresses)
                    continue
                name = group.display_name if self.utf8 else seven_bit_text(group.display_name)
                items.append(List([Nil(), Nil(), String.build(name), Nil()]))
                items.extend(self._address(address) for address in group.addresses)
                items.append(List([Nil(), Nil(), Nil(), Nil()]))
        return List(items) if items else None

    def _address(self, address: Address) -> List:
        """address = "(" addr-name SP addr-adl SP addr-mailbox SP addr-host ")"."""
        name = address.display_name or None
        if name is not None and not self.utf8:
            name = seven_bit_text(name)
        return List(
            [
                String.build(name),
                Nil(),
                String.build(address.username),
                String.build(address.domain),
            ]
        )


class _Utf8Envelope(_Envelope):
    utf8 = True


# The envelope of each parsed content, by UTF8=ACCEPT: a content is shared by every
# session (imap_view/content_cache.py) and its envelope never changes, so it is built
# and formatted once — a message list (`FETCH 1:n (FLAGS ENVELOPE)`) formatted every
# envelope's addresses anew on every FETCH, most of that command's time.
_ENVELOPES: tuple[WeakKeyDictionary[MessageContent, _Envelope], ...] = (
    WeakKeyDictionary(),
    WeakKeyDictionary(),
)


def envelope_of(msg: MessageContent, *, utf8: bool = False) -> EnvelopeStructure:
    known = _ENVELOPES[utf8]
    envelope = known.get(msg)
    if envelope is None:
        envelope = known[msg] = _made(msg, utf8)
    return envelope


def _made(msg: MessageContent, utf8: bool) -> _Envelope:
    parsed = msg.header.parsed
    envelope = (_Utf8Envelope if utf8 else _Envelope)(
        parsed.date,
        parsed.subject,
        parsed.from_,
        parsed.sender,
        parsed.reply_to,
        parsed.to,
        parsed.cc,
        parsed.bcc,
        parsed.in_reply_to,
        parsed.message_id,
    )
    if not utf8:
        envelope.wire_subject = stored_text(msg, b"subject", parsed.subject)
    envelope.wire_date = raw_header(msg, b"date")
    return envelope

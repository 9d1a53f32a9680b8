"""A message's SORT and THREAD keys (RFC 5256 §2, §3), from its header or its columns.

`HeaderKeys` is what the header fields give: the sent date (§2.2; None when the Date
cannot be read, the caller then takes INTERNALDATE), the base subject (§2.1) and
whether it is a reply or forward, the first From, To and Cc mailbox and the first From
and To display name (RFC 5957, imap_view/sort_display.py), all case-mapped
(imap_view/casemap.py), and what THREAD=REFERENCES links by: the Message-ID and the
references (those of References, else the first of In-Reply-To, as Dovecot reads
them). INTERNALDATE and the size are not among them: the database gives those at each
command (core/rendering/sort_rows.py).

Keys are made once per process and kept in `SortKeyCache`, up to a memory budget, by
what they depend on (`SortRow.keyed_by`, core/rendering/sort_rows.py): an original's
never change (its bytes never do), a rendering's change with its conversation's alias
only, which is part of what they are kept by, so a rename is never served stale keys.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final, NamedTuple

from core.mime.header_decoding import decode_words, header_text
from core.mime.headers import header_fields
from core.rendering.sort_rows import RenderedFields
from imap_view.base_subject import base_subject
from imap_view.casemap import casemap
from imap_view.opaque import FIELD_LINES
from imap_view.sort_display import first_display
from imap_view.sort_headers import first_mailbox, message_ids, sent_time

__all__ = ["HeaderKeys", "SortKeyCache", "keys_of_fields", "keys_of_header"]

_FIELDS: Final = frozenset(
    (b"subject", b"date", b"from", b"to", b"cc", b"message-id", b"references", b"in-reply-to")
)


class HeaderKeys(NamedTuple):
    sent: int | None  # seconds since the epoch
    subject: str
    reply: bool
    from_: str
    to: str
    cc: str
    message_id: str | None
    references: tuple[str, ...]
    display_from: str = ""  # RFC 5957 (imap_view/sort_display.py)
    display_to: str = ""


def _display(field: str) -> str:
    """RFC 5957's key; Dovecot decodes the field before it reads the address in it
    (its mail_get_first_header_utf8)."""
    return casemap(first_display(decode_words(field)))


def _keys(
    subject: str,
    date: int | None,
    addresses: tuple[str, str, str],
    message_id: str,
    references: list[str],
    shown: tuple[str, str] | None = None,
) -> HeaderKeys:
    base, reply = base_subject(subject)
    ids = message_ids(message_id)
    sender, to, cc = (casemap(first_mailbox(field)) for field in addresses)
    shown_from, shown_to = shown or (_display(addresses[0]), _display(addresses[1]))
    return HeaderKeys(
        date, base, reply, sender, to, cc, ids[0] if ids else None, tuple(references),
        shown_from, shown_to,
    )  # fmt: skip


def keys_of_header(header: bytes) -> HeaderKeys:
    """The keys of a header section (fields folded over more than FIELD_LINES lines are
    left out, as ENVELOPE leaves them out of a message over the MIME bounds). CPU work:
    call it in a worker thread for many."""
    values: dict[bytes, str] = {}
    for name, lines in header_fields(
        header, 0, len(header), wanted=_FIELDS, max_field_lines=FIELD_LINES
    ):
        if name not in values:  # the first field of each name, as Dovecot reads them
            raw = b"".join(header[start:end] for start, end, _ in lines)
            values[name] = header_text(raw[raw.index(b":") + 1 :].strip())
    references = message_ids(values.get(b"references", ""))
    if not references:
        references = message_ids(values.get(b"in-reply-to", ""))[:1]
    return _keys(
        values.get(b"subject", ""),
        sent_time(values[b"date"]) if b"date" in values else None,
        (values.get(b"from", ""), values.get(b"to", ""), values.get(b"cc", "")),
        values.get(b"message-id", ""),
        references,
    )


def keys_of_fields(fields: RenderedFields) -> HeaderKeys:
    """The keys of a rendering, from the values its header is written from: the same
    keys `keys_of_header` reads from the rendered header (tests/unit/test_imap_sort_keys.py)."""
    # A display name of the rendering's is a name of the address grammar (or none, for
    # an outside party): read back from the header, it is the name as it is.
    shown = (
        casemap(fields.sender_name) if fields.sender_name else _display(fields.sender),
        casemap(fields.to_name) if fields.to_name else _display(fields.to),
    )
    return _keys(
        fields.subject,
        int(fields.date.timestamp()),  # the Date field has whole seconds
        (fields.sender, fields.to, fields.cc or ""),
        fields.message_id,
        message_ids(" ".join(fields.references)),
        shown,
    )


def _weight(keys: HeaderKeys) -> int:
    """About what one entry holds, in bytes."""
    strings = (
        keys.subject, keys.from_, keys.to, keys.cc, keys.message_id or "",
        keys.display_from, keys.display_to,
    )  # fmt: skip
    return 200 + sum(sys.getsizeof(s) for s in strings) + 60 * len(keys.references)


class SortKeyCache:
    """Messages' keys by what they depend on, shared by every session of the process,
    least recently used first out, at most `max_bytes` as `_weight` counts them (about
    530 bytes for everyday mail, which is what they hold: 32 MiB keep some 60,000).

    A command that needs more keys than fit (a SORT of a folder larger than that) would
    make plain LRU evict, for each key it adds, one it read a moment before, and find
    none of them at the next SORT. So a key the running command used (`begin` starts
    one) is never evicted for another of the same command: the keys that do not fit are
    made again each time, the others are kept."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        # key → (keys, weight, the command that used it last)
        self._items: OrderedDict[Hashable, tuple[HeaderKeys, int, int]] = OrderedDict()
        self._bytes = 0
        self._command = 0

    def begin(self) -> None:
        """A command starts using keys."""
        self._command += 1

    def get(self, key: Hashable) -> HeaderKeys | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items[key] = (item[0], item[1], self._command)
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: Hashable, keys: HeaderKeys) -> None:
        if key in self._items:
            return
        weight = _weight(keys)
        while self._bytes + weight > self.max_bytes and self._items:
            oldest = next(iter(self._items.values()))
            if oldest[2] == self._command:  # full of this command's keys: keep them
                return
            self._bytes -= self._items.popitem(last=False)[1][1]
        if self._bytes + weight <= self.max_bytes:
            self._items[key] = (keys, weight, self._command)
            self._bytes += weight

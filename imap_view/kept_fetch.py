"""ENVELOPE, BODYSTRUCTURE, BODY, RFC822.SIZE and `BODY[HEADER.FIELDS (…)]` written from a
message's kept summary (core/mime/summary.py), without its bytes.

The summary holds the values the parsing path (imap_view/envelope.py,
imap_view/structure.py) reads from pymap's parsed headers, as plain JSON; here they
are written in the same order with the same primitives' rules — pymap's
`String.build` (a quoted string under 64 octets without CR or NUL, else a literal;
text that is not ASCII a UTF-8 literal), lists in parentheses, NIL — so the bytes are
the same (tests/unit/test_kept_fetch.py compares both on every corpus message).
RFC 3501 §7.4.2 and §9 (body-ext-1part, body-ext-mpart) give the layout; RFC 6855 §3
the 7-bit text for a session without UTF8=ACCEPT (kept beside the decoded text).

A `KeptMessage` formats each item once and keeps the bytes: a listing of the same
folder again writes them as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import quote

from pymap.parsing.specials import FetchAttribute

from core.mime.encoded_words import is_ascii, seven_bit_params
from core.mime.summary import KEPT_FIELDS
from imap_view.pymap_compat import simple_attributes

__all__ = ["KEPT_UPPER", "KeptMessage", "body_bytes", "envelope_bytes", "kept_only"]

Json = dict[str, Any]
NIL: Final = b"NIL"
_SPECIALS: Final = re.compile(rb'["\\]')
_LOCATION_SAFE: Final = "".join(map(chr, range(0x21, 0x7F)))
KEPT_UPPER: Final = frozenset(name.upper() for name in KEPT_FIELDS)
# A message's own values (UID, FLAGS, INTERNALDATE, MODSEQ …): no content needed.
_SIMPLE_ITEMS: Final = frozenset({*simple_attributes(), b"MODSEQ"})


def _string(value: str | None) -> bytes:
    """pymap's `bytes(String.build(value))` for text."""
    if value is None:
        return NIL
    if not value:
        return b'""'
    try:
        data = value.encode("ascii")
    except UnicodeEncodeError:
        data = value.encode("utf-8", "replace")
        return b"{%d}\r\n%b" % (len(data), data)
    if len(data) < 64 and b"\n" not in data and b"\x00" not in data:
        return b'"' + _SPECIALS.sub(rb"\\\g<0>", data) + b'"'
    return b"{%d}\r\n%b" % (len(data), data)


def _list(items: list[bytes]) -> bytes:
    return b"(" + b" ".join(items) + b")"


def _params(params: dict[str, str]) -> bytes:
    """body-fld-param: `("name" "value" …)` or NIL."""
    if not params:
        return NIL
    return _list([_string(item) for pair in params.items() for item in pair])


def _addresses(items: list[list[Any]] | None, utf8: bool) -> bytes:
    """An address list (core/mime/envelope_addresses.py's items), a group between its
    start and end markers (RFC 3501 §7.4.2)."""
    if not items:
        return NIL
    out = []
    for item in items:
        kind = item[0]
        if kind == "a":
            _, name, name7, route, mailbox, host = item
            if not utf8 and name7 is not None:
                name = name7
            out.append(_list([_string(name), _string(route), _string(mailbox), _string(host)]))
        elif kind == "g":
            _, name, name7 = item
            out.append(_list([NIL, NIL, _string(name if utf8 or name7 is None else name7), NIL]))
        else:
            out.append(b"(NIL NIL NIL NIL)")
    return _list(out)


def envelope_bytes(envelope: Json, utf8: bool) -> bytes:
    """RFC 3501 §7.4.2's ENVELOPE; Sender and Reply-To default to From."""
    sender, reply_to = envelope["sender"], envelope["reply-to"]
    return _list(
        [
            _string(envelope["date"]),
            _string(envelope["subject"] if utf8 else envelope["subject7"]),
            _addresses(envelope["from"], utf8),
            _addresses(envelope["from"] if sender is None else sender, utf8),
            _addresses(envelope["from"] if reply_to is None else reply_to, utf8),
            _addresses(envelope["to"], utf8),
            _addresses(envelope["cc"], utf8),
            _addresses(envelope["bcc"], utf8),
            _string(envelope["in-reply-to"]),
            _string(envelope["message-id"]),
        ]
    )


def _extensions(part: Json, utf8: bool) -> list[bytes]:
    """body-fld-dsp SP body-fld-lang SP body-fld-loc (RFC 3501 §9)."""
    disposition = part["disposition"]
    if disposition is None:
        shown = NIL
    else:
        kind, params = disposition
        values = dict(params) if utf8 else seven_bit_params(dict(params))
        shown = _list([_string(kind), _params(values)])
    tags = part["language"]
    if not tags:
        language = NIL
    elif len(tags) == 1:
        language = _string(tags[0])
    else:
        language = _list([_string(tag) for tag in tags])
    location = part["location"]
    if location and not utf8 and not is_ascii(location):
        location = quote(location, safe=_LOCATION_SAFE)
    return [shown, language, _string(location or None)]


_EMPTY_PART: Final = b'("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 0 0'


def body_bytes(part: Json, utf8: bool, extended: bool) -> bytes:
    """BODYSTRUCTURE (`extended`) or BODY of a part, as imap_view/structure.py writes it."""
    if part.get("opaque"):
        charset, encoding = ("utf-8", "8bit") if part["eight_bit"] else ("us-ascii", "7bit")
        basic = [b'"text"', b'"plain"', b'("charset" "%b")' % charset.encode(), NIL, NIL]
        basic += [b'"%b"' % encoding.encode(), b"%d" % part["size"], b"%d" % part["lines"]]
        return _list([*basic, NIL, NIL, NIL, NIL] if extended else basic)
    maintype, subtype = part["type"]
    params = dict(part["params"]) if utf8 else seven_bit_params(dict(part["params"]))
    if maintype == "text" and "charset" not in params:
        params = {"charset": "us-ascii", **params}  # RFC 2045 §5.2's default, as Dovecot
    if maintype == "multipart":
        nested = b"".join(body_bytes(child, utf8, extended) for child in part["parts"])
        if not part["parts"]:  # no part found: one empty text part, as Dovecot writes it
            nested = _EMPTY_PART + (b" NIL NIL NIL NIL)" if extended else b")")
        if not extended:
            return _list([nested, _string(subtype)])
        return _list([nested, _string(subtype), _params(params), *_extensions(part, utf8)])
    description = part["description"] if utf8 else part["description7"]
    basic = [_string(maintype), _string(subtype), _params(params), _string(part["id"])]
    basic += [_string(description), _string(part["encoding"]), b"%d" % part["size"]]
    inner = part.get("message")
    if maintype == "message" and subtype == "rfc822" and inner is not None:
        basic += [envelope_bytes(part["envelope"], utf8), body_bytes(inner, utf8, extended)]
        basic.append(b"%d" % part["lines"])
    elif maintype == "text":
        basic.append(b"%d" % part["lines"])
    if not extended:
        return _list(basic)
    return _list([*basic, _string(part["md5"]), *_extensions(part, utf8)])


_KEPT_ITEMS = frozenset({b"ENVELOPE", b"BODYSTRUCTURE", b"RFC822.SIZE"})


def _kept_answers(attribute: FetchAttribute) -> bool:
    """Whether a kept summary gives this attribute (imap_view/kept_fetch.py): a message's
    own value, ENVELOPE, BODYSTRUCTURE, BODY (no section), RFC822.SIZE, or
    `BODY[HEADER.FIELDS (…)]` of kept fields, whole."""
    name, section = attribute.value, attribute.section
    if name in _SIMPLE_ITEMS or name in _KEPT_ITEMS:
        return True
    if name not in (b"BODY", b"BODY.PEEK"):
        return False
    if section is None:
        return name == b"BODY"
    return (
        not section.parts
        and section.specifier == b"HEADER.FIELDS"
        and section.headers is not None
        and section.headers <= KEPT_UPPER
        and attribute.partial is None
    )


def kept_only(attributes: Iterable[FetchAttribute]) -> bool:
    """Whether a FETCH writes only what kept summaries give (a client's folder listing):
    its messages are then loaded as their summaries, not their bytes
    (imap_view/kept_contents.py)."""
    return all(_kept_answers(a) for a in attributes)


class KeptMessage:
    """One message's kept summary (its JSON), each FETCH item formatted once and kept
    (by UTF8=ACCEPT); the JSON is parsed only to format, and not kept parsed."""

    __slots__ = ["__weakref__", "_formatted", "text"]

    def __init__(self, text: str) -> None:
        self.text = text
        self._formatted: dict[tuple[bytes, bool], bytes] = {}

    def _item(self, name: bytes, utf8: bool) -> bytes:
        found = self._formatted.get((name, utf8))
        if found is not None:
            return found
        summary: Json = json.loads(self.text)
        formatted = self._formatted
        if name == b"BODY":
            formatted[(name, utf8)] = body_bytes(summary["body"], utf8, False)
        else:  # a listing asks for these together
            formatted[(b"ENVELOPE", utf8)] = envelope_bytes(summary["envelope"], utf8)
            formatted[(b"BODYSTRUCTURE", utf8)] = body_bytes(summary["body"], utf8, True)
            formatted[(b"SIZE", False)] = b"%d" % summary["size"]
        return formatted[(name, utf8)]

    def envelope(self, utf8: bool) -> bytes:
        return self._item(b"ENVELOPE", utf8)

    def body_structure(self, utf8: bool, extended: bool = True) -> bytes:
        return self._item(b"BODYSTRUCTURE" if extended else b"BODY", utf8)

    @property
    def size(self) -> int:
        return int(self._item(b"SIZE", False))

    def header_fields(self, names: frozenset[bytes]) -> bytes | None:
        """`BODY[HEADER.FIELDS (names)]`'s data (upper-case names), or None when a name is
        not among the kept fields: the message's bytes must be read. A message over the
        bounds kept ENVELOPE's fields alone, which are all IMAP serves of its header."""
        if not names <= KEPT_UPPER:
            return None
        asked = (b"FIELDS " + b" ".join(sorted(names)), False)
        found = self._formatted.get(asked)
        if found is None:
            fields = json.loads(self.text).get("fields")
            if fields is None:
                return None
            wanted = [raw for name, raw in fields if name.upper().encode() in names]
            found = self._formatted[asked] = (
                "".join(wanted).encode("ascii", "surrogateescape") + b"\r\n"
            )
        return found

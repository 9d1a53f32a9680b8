"""APPEND of a literal8 (`~{n}`, RFC 3516 §4.4): its `binary` parts are stored base64.

A client APPENDs a message that holds NUL octets as a literal8; the server "MAY
modify the CTE of the appended data, however any such modifications MUST NOT result
in a loss of data" (§4.4). IMAP's own literals cannot carry a NUL (RFC 3501 §9:
CHAR8 excludes it), so a message stored as it came could be served by `BODY[]` only
with its NULs changed (imap_view/body_values.py). Dovecot converts each part whose
`Content-Transfer-Encoding` is `binary` to base64 as it stores a literal8 APPEND
(its binary converter stream), and so does the gateway: `BODY[n]` is then the base64
text, BODYSTRUCTURE says `"base64"`, and `BINARY[n]` (which undoes the encoding)
gives the octets back (imaptest's append-binary).

What is converted, as Dovecot converts it: every part that is no multipart (nor
message/rfc822, whose body is a message: Dovecot's converter would mark it base64 and
leave it as it is) and whose header has a one-line `Content-Transfer-Encoding: binary`
field (any case). The field is replaced by `Content-Transfer-Encoding: base64` where it
stood; the body becomes base64 in lines of 76 characters ended by CRLF, the last one
without. A message over the MIME bounds (core/mime/bounds.py) is stored as it came.

pymap's APPEND parser drops whether a literal was a literal8; `BinaryAppendCommand`
(registered in its place, imap_view/config.py) keeps it with each message.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterator
from dataclasses import dataclass

from pymap.parsing import Params, Space
from pymap.parsing.command.auth import AppendCommand
from pymap.parsing.exceptions import InvalidContent, NotParseable, UnexpectedType
from pymap.parsing.message import AppendMessage
from pymap.parsing.primitives import List, LiteralString
from pymap.parsing.specials import DateTime, Flag
from pymap.parsing.specials.options import ExtensionOption, ExtensionOptions

from core.mime.headers import header_fields
from core.mime.structure import Part, mime_structure

__all__ = ["BinaryAppendCommand", "BinaryAppendMessage", "base64_binary_parts"]

_CTE = frozenset((b"content-transfer-encoding",))
_BASE64_FIELD = b"Content-Transfer-Encoding: base64\r\n"
_LINE_OCTETS = 57  # 76 base64 characters


@dataclass(frozen=True)
class BinaryAppendMessage(AppendMessage):
    """An APPENDed message that came as a literal8."""

    binary: bool = False


class BinaryAppendCommand(AppendCommand):
    """pymap's APPEND (RFC 3501 §6.3.11, RFC 3502's several messages), each message
    marked when its literal was a literal8. pymap 0.36.7's `_parse_msg`, written out
    again with public parsers only, keeping the literal's `binary`."""

    @classmethod
    def _parse_msg(
        cls, name: str, buf: memoryview, params: Params
    ) -> tuple[AppendMessage | None, memoryview]:
        _, buf = Space.parse(buf, params)
        flags: frozenset[Flag] = frozenset()
        try:
            flag_list, buf = List.parse(buf, params.copy(expected=[Flag]))
        except UnexpectedType:
            raise
        except NotParseable:
            pass
        else:
            flags = frozenset(flag_list.get_as(Flag))
            _, buf = Space.parse(buf, params)
        when = None
        try:
            date_time, buf = DateTime.parse(buf, params)
        except InvalidContent:
            raise
        except NotParseable:
            pass
        else:
            when = date_time.value
            _, buf = Space.parse(buf, params)
        options: list[ExtensionOption] = []
        while True:
            try:
                option, buf = ExtensionOption.parse(buf, params)
            except NotParseable:
                break
            options.append(option)
        try:
            literal, buf = LiteralString.parse(buf, params)
        except NotParseable:
            if not options:
                raise
            return BinaryAppendMessage(b"", when, flags, ExtensionOptions(options)), buf
        if literal.value == b"":  # a zero-length literal cancels the command (as pymap)
            return None, buf
        return (
            BinaryAppendMessage(
                literal.value, when, flags, ExtensionOptions(options), literal.binary
            ),
            buf,
        )


def _leaves(part: Part) -> Iterator[Part]:
    if part.maintype == "multipart" or (part.maintype, part.subtype) == ("message", "rfc822"):
        for child in part.parts:
            yield from _leaves(child)
    else:
        yield part


def _binary_field(data: bytes, part: Part) -> tuple[int, int] | None:
    """Where the part's one-line `Content-Transfer-Encoding: binary` field is (its line
    break included), or None."""
    for _, lines in header_fields(data, part.header_start, part.body_start, wanted=_CTE):
        if len(lines) != 1:
            continue
        start, end, following = lines[0]
        value = data[start:end].split(b":", 1)[1].strip()
        if value.lower() == b"binary":
            return start, following
    return None


def _base64(body: bytes) -> bytes:
    return b"\r\n".join(
        binascii.b2a_base64(body[at : at + _LINE_OCTETS], newline=False)
        for at in range(0, len(body), _LINE_OCTETS)
    )


def base64_binary_parts(data: bytes) -> bytes:
    """The message with its `binary` parts base64 (see the module doc). CPU in
    proportion to the message: run it in a worker thread."""
    if b"binary" not in data.lower():
        return data
    structure = mime_structure(data)
    if structure.opaque or structure.root is None:
        return data
    pieces: list[bytes] = []
    at = 0
    for part in _leaves(structure.root):
        field = _binary_field(data, part)
        if field is None:
            continue
        pieces += [data[at : field[0]], _BASE64_FIELD, data[field[1] : part.body_start]]
        pieces.append(_base64(data[part.body_start : part.body_end]))
        at = part.body_end
    if not pieces:
        return data
    pieces.append(data[at:])
    return b"".join(pieces)

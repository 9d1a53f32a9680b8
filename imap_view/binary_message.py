"""`BINARY[]` of a whole message (RFC 3516 §4.2, an empty section-binary): every part's
Content-Transfer-Encoding undone, as Dovecot 2.3 gives it.

pymap decoded the message's own body by its own header's encoding and kept that
header: a single-part base64 message came as `Content-Transfer-Encoding: base64` above
the decoded octets, and a multipart one was not decoded at all. Here, as Dovecot's
index-mail-binary.c does: each part whose encoding is quoted-printable or base64 has
that field taken out of its header and `Content-Transfer-Encoding: binary` put last in
it, before the empty line, and, when it holds no parts (a message/rfc822 part holds
one), its body decoded (imap_view/decoders.py); every other octet is copied as it is.
Dovecot also turns each bare line feed outside the decoded bodies into CRLF; the
gateway does not, so that the octets of a `binary` part stay the octets stored. A part
in an encoding nobody can undo fails the FETCH first (`NO [UNKNOWN-CTE]`,
imap_view/decoders.py's `unknown_encoding`); a message over the MIME bounds is given
as it is stored.

The walk is the bounded one (core/mime/structure.py), made again here: BINARY[] of a
whole message is rare, and its work, like the decoding of any BINARY[n], is in
proportion to the message (at most the APPENDLIMIT).
"""

from __future__ import annotations

from collections.abc import Iterator

from core.mime.headers import header_fields, split_header
from core.mime.structure import Part, mime_structure
from imap_view.decoders import decode_base64, decode_quoted_printable

__all__ = ["binary_message"]

_CTE = frozenset((b"content-transfer-encoding",))
_BINARY_FIELD = b"Content-Transfer-Encoding: binary\r\n"
_DECODERS = {"base64": decode_base64, "quoted-printable": decode_quoted_printable}


def _header(data: bytes, part: Part) -> bytes:
    """The part's header without its Content-Transfer-Encoding fields, `binary` last."""
    fields_end = split_header(data, part.header_start, part.body_end, len(data))[0]
    kept: list[bytes] = []
    at = part.header_start
    for _, lines in header_fields(data, part.header_start, fields_end, wanted=_CTE):
        kept.append(data[at : lines[0][0]])
        at = lines[-1][2]
    kept += [data[at:fields_end], _BINARY_FIELD, data[fields_end : part.body_start]]
    return b"".join(kept)


def _replacements(data: bytes, part: Part) -> Iterator[tuple[int, int, bytes]]:
    """(start, end, octets in place of data[start:end]) for the part and those in it,
    in order and apart."""
    encoding = part.headers.get("content-transfer-encoding", "").strip().lower()
    decoder = _DECODERS.get(encoding)
    if decoder is not None:
        yield part.header_start, part.body_start, _header(data, part)
    for child in part.parts:
        yield from _replacements(data, child)
    if decoder is not None and not part.parts:
        yield part.body_start, part.body_end, decoder(data[part.body_start : part.body_end])


def binary_message(data: bytes) -> bytes:
    """The whole message with its parts decoded (see the module doc)."""
    structure = mime_structure(data)
    if structure.opaque or structure.root is None:
        return data
    out: list[bytes] = []
    copied = 0  # data[:copied] is in `out`, as it is or as its replacement
    for start, end, octets in _replacements(data, structure.root):
        out += [data[copied:start], octets]
        copied = end
    out.append(data[copied:])
    return b"".join(out)

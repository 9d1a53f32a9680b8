"""Header text as IMAP sends it to a client that has not enabled UTF8=ACCEPT: 7-bit.

RFC 6855 §3: until the client enables UTF8=ACCEPT the server sends no raw UTF-8 in
ENVELOPE or BODYSTRUCTURE. So header text goes out as stored (RFC 2047
encoded-words stay encoded, as Dovecot does), and text that only exists decoded
(a display name, a parameter value the parser decoded) is encoded again:
RFC 2047 encoded-words for header text, RFC 2231 `name*=utf-8''…` for parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from email.header import Header
from typing import Any
from urllib.parse import quote

from pymap.mime import MessageContent

__all__ = ["is_ascii", "raw_header", "seven_bit_params", "seven_bit_text", "stored_text"]


def is_ascii(text: str) -> bool:
    return text.isascii()


def _text(text: str) -> str:
    """Decoded header text without the lone surrogates pymap's parser leaves for 8-bit
    bytes (it reads headers as ASCII with `surrogateescape`): those bytes read as UTF-8."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def seven_bit_text(text: str) -> str:
    """RFC 2047 §5 encoded-words for text that is not ASCII, on one line (adjacent
    encoded-words are joined by a space, which RFC 2047 §6.2 drops when decoding)."""
    if is_ascii(text):
        return text
    return " ".join(Header(_text(text), "utf-8").encode().split())


def raw_header(msg: MessageContent, name: bytes) -> str | None:
    """The first `name` header's value as stored, unfolded (RFC 5322 §2.2.3), if it
    is ASCII; None when the message has no such header or it carries 8-bit bytes."""
    for key, value in msg.header.folded:
        if key.lower() != name:
            continue
        data = bytes(value)
        _, _, text = data.partition(b":")
        text = text.replace(b"\r\n", b"").replace(b"\n", b"").strip(b" \t")
        try:
            return text.decode("ascii")
        except UnicodeDecodeError:
            return None
    return None


def stored_text(msg: MessageContent, name: bytes, decoded: object | None) -> str | None:
    """A header's text as stored when it is ASCII, else its decoded value encoded again."""
    if decoded is None:
        return None
    raw = raw_header(msg, name)
    return raw if raw is not None else seven_bit_text(str(decoded))


def seven_bit_params(params: Mapping[str, Any] | None) -> dict[str, str]:
    """MIME parameters with every value ASCII: a decoded non-ASCII value goes out in
    RFC 2231 §4's form (`filename*` = `utf-8''%E6%8A%A5.txt`); a name that is not
    ASCII (never a valid token, RFC 2045 §5.1) is dropped."""
    out: dict[str, str] = {}
    for name, value in (params or {}).items():
        if not is_ascii(name):
            continue
        text = str(value)
        if is_ascii(text):
            out[name] = text
        else:
            out[f"{name}*"] = "utf-8''" + quote(_text(text), safe="")
    return out

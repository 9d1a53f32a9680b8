"""Header text in 7-bit: RFC 2047 encoded-words and RFC 2231 parameter values.

Text a mail program decoded (a display name, a parameter value) and must hand on to a
reader that takes only ASCII is encoded again: RFC 2047 encoded-words for header text,
RFC 2231 `name*=utf-8''…` for parameters. Header text read from 8-bit bytes as ASCII
with `surrogateescape` (how the email package and pymap read a header) is taken as
UTF-8, so an SMTPUTF8 or broken message still gives valid text. IMAP uses these for a
session that did not enable UTF8=ACCEPT (RFC 6855 §3), at read time and when a
message's structure is kept (core/mime/summary.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from email.header import Header
from typing import Any
from urllib.parse import quote

__all__ = ["decoded_text", "is_ascii", "seven_bit_params", "seven_bit_text"]


def is_ascii(text: str) -> bool:
    return text.isascii()


def decoded_text(text: str) -> str:
    """Decoded header text without the lone surrogates left for 8-bit bytes: those
    bytes read as UTF-8 (an invalid sequence becomes U+FFFD)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def seven_bit_text(text: str) -> str:
    """RFC 2047 §5 encoded-words for text that is not ASCII, on one line (adjacent
    encoded-words are joined by a space, which RFC 2047 §6.2 drops when decoding)."""
    if is_ascii(text):
        return text
    return " ".join(Header(decoded_text(text), "utf-8").encode().split())


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
            out[f"{name}*"] = "utf-8''" + quote(decoded_text(text), safe="")
    return out

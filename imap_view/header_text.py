"""Header text as IMAP sends it to a client that has not enabled UTF8=ACCEPT: 7-bit.

RFC 6855 §3: until the client enables UTF8=ACCEPT the server sends no raw UTF-8 in
ENVELOPE or BODYSTRUCTURE. So header text goes out as stored (RFC 2047
encoded-words stay encoded, as Dovecot does), and text that only exists decoded
(a display name, a parameter value the parser decoded) is encoded again:
RFC 2047 encoded-words for header text, RFC 2231 `name*=utf-8''…` for parameters
(core/mime/encoded_words.py, which the kept structures use too).
"""

from __future__ import annotations

from pymap.mime import MessageContent

from core.mime.encoded_words import is_ascii, seven_bit_params, seven_bit_text

__all__ = ["is_ascii", "raw_header", "seven_bit_params", "seven_bit_text", "stored_text"]


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

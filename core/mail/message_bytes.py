"""An RFC 5322 message's bytes given to the standard library's parser, in pieces.

`BytesParser.parsebytes` hands the parser the whole message as one string, which
the parser copies into a buffer of 4 bytes a character: 100 MB for a 24 MB
message, on top of the message and its parts. Fed in pieces of `FEED_BYTES`, the
parser holds one piece at a time, and builds exactly the same message (each byte
decodes on its own, ASCII with surrogate escapes, as `parsebytes` does).
"""

from __future__ import annotations

import re
from email.feedparser import FeedParser
from email.message import EmailMessage
from email.policy import Policy

__all__ = ["FEED_BYTES", "header_block", "parse_bytes"]

FEED_BYTES = 64 * 1024
_HEADER_END = re.compile(rb"\r?\n\r?\n")  # the blank line after the header fields


def parse_bytes(raw: bytes, policy: Policy) -> EmailMessage:
    """`BytesParser(policy=policy).parsebytes(raw)`, fed in pieces."""
    parser = FeedParser(policy=policy)
    for start in range(0, len(raw), FEED_BYTES):
        parser.feed(raw[start : start + FEED_BYTES].decode("ascii", "surrogateescape"))
    message = parser.close()
    assert isinstance(message, EmailMessage)
    return message


def header_block(raw: bytes) -> bytes:
    """The header fields of `raw` and the blank line after them: all a parser needs to
    read the header fields of a message whose body is not to be read."""
    end = _HEADER_END.search(raw)
    return raw if end is None else raw[: end.end()]
